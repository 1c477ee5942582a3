# Dependencies of the tokenizers (lib/Runtime/Tokenizer.cpp):
#  - ICU's character properties (libicu-dev, which llvm-22-dev already pulls
#    in through libxml2-dev) for the GPT-2 pre-tokenization: required.
#  - libsentencepiece (libsentencepiece-dev) for sentencepiece .model files:
#    optional (on when found). Debian's libsentencepiece.so.0 carries its own
#    copy of protobuf-lite and exports its symbols; linked into a binary that
#    also loads libprotobuf.so.32 (the ONNX importer) they interpose and the
#    process crashes in protobuf's static initialisers before main. So llmc
#    never links it: lib/Runtime/SentencePiece builds libllmc_sentencepiece.so
#    (a C interface over it), which the tokenizer dlopen()s with RTLD_LOCAL |
#    RTLD_DEEPBIND at the first .model file. LLMC_HAVE_SENTENCEPIECE is 1
#    when found (also the lit feature `sentencepiece`); without it loading a
#    .model is an error saying llmc was built without sentencepiece.
find_package(ICU REQUIRED COMPONENTS uc data)
option(LLMC_ENABLE_SENTENCEPIECE
  "Read sentencepiece .model tokenizers with libsentencepiece (loaded in isolation, beside the ONNX importer's libprotobuf)" ON)
if(LLMC_ENABLE_SENTENCEPIECE)
  find_path(LLMC_SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h)
  find_library(LLMC_SENTENCEPIECE_LIB sentencepiece)
endif()
if(LLMC_ENABLE_SENTENCEPIECE AND LLMC_SENTENCEPIECE_INCLUDE_DIR AND
   LLMC_SENTENCEPIECE_LIB)
  set(LLMC_HAVE_SENTENCEPIECE 1)
  message(STATUS "llmc: sentencepiece tokenizers enabled (${LLMC_SENTENCEPIECE_LIB})")
else()
  set(LLMC_HAVE_SENTENCEPIECE 0)
  message(STATUS "llmc: sentencepiece .model tokenizers disabled "
    "(LLMC_ENABLE_SENTENCEPIECE=${LLMC_ENABLE_SENTENCEPIECE})")
endif()
# What the runtime library links and includes for them (sentencepiece is
# loaded at run time, not linked).
set(LLMC_TOKENIZER_LIBS ${ICU_LIBRARIES} ${CMAKE_DL_LIBS})
set(LLMC_TOKENIZER_INCLUDE_DIRS ${ICU_INCLUDE_DIRS})
