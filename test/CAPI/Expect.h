/*===- Expect.h - The checks of the C API tests -------------------*- C -*-===*\
|*                                                                            *|
|* Part of the llmc project, under the Apache License v2.0 with LLVM          *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* EXPECT(cond): a failed condition is printed ("FAILED: cond (line N)") on  *|
|* EXPECT_STREAM (stdout unless the test defines it first, e.g. stderr to    *|
|* stay in order with a trace there) and counted in `failures`; the test     *|
|* goes on and reports the count at its end.                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLMC_TEST_CAPI_EXPECT_H
#define LLMC_TEST_CAPI_EXPECT_H

#include <stdio.h>

#ifndef EXPECT_STREAM
#define EXPECT_STREAM stdout
#endif

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(EXPECT_STREAM, "FAILED: %s (line %d)\n", #cond, __LINE__);       \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#endif // LLMC_TEST_CAPI_EXPECT_H
