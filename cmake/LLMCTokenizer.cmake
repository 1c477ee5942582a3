# Dependencies of the tokenizers (lib/Runtime/Tokenizer.cpp):
#  - ICU's character properties (libicu-dev, which llvm-22-dev already pulls
#    in through libxml2-dev) for the GPT-2 pre-tokenization: required.
#  - libsentencepiece (libsentencepiece-dev) for sentencepiece .model files:
#    optional. LLMC_HAVE_SENTENCEPIECE is 1 when found (also the lit feature
#    `sentencepiece`); without it loading a .model is an error saying so.
find_package(ICU REQUIRED COMPONENTS uc data)
find_path(LLMC_SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h)
find_library(LLMC_SENTENCEPIECE_LIB sentencepiece)
if(LLMC_SENTENCEPIECE_INCLUDE_DIR AND LLMC_SENTENCEPIECE_LIB)
  set(LLMC_HAVE_SENTENCEPIECE 1)
  message(STATUS "llmc: sentencepiece tokenizers enabled (${LLMC_SENTENCEPIECE_LIB})")
else()
  set(LLMC_HAVE_SENTENCEPIECE 0)
  message(STATUS "llmc: libsentencepiece-dev not found: sentencepiece .model "
    "tokenizers disabled")
endif()
# What the runtime library links and includes for them.
set(LLMC_TOKENIZER_LIBS ${ICU_LIBRARIES})
set(LLMC_TOKENIZER_INCLUDE_DIRS ${ICU_INCLUDE_DIRS})
if(LLMC_HAVE_SENTENCEPIECE)
  list(APPEND LLMC_TOKENIZER_LIBS ${LLMC_SENTENCEPIECE_LIB})
  list(APPEND LLMC_TOKENIZER_INCLUDE_DIRS ${LLMC_SENTENCEPIECE_INCLUDE_DIR})
endif()
