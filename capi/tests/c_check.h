/*
 * What the C test programs share: FAIL prints where and why, then exits
 * non-zero; CHECK fails on any status but VKSSIM_OK, with its name and the
 * library's message.
 */
#ifndef VKSSIM_TEST_C_CHECK_H
#define VKSSIM_TEST_C_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "vkssim.h"

#define FAIL(...)                                                              \
  do {                                                                         \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                            \
    fprintf(stderr, __VA_ARGS__);                                              \
    fprintf(stderr, "\n");                                                     \
    exit(1);                                                                   \
  } while (0)

#define CHECK(call)                                                            \
  do {                                                                         \
    VkssimStatus s_ = (call);                                                  \
    if (s_ != VKSSIM_OK)                                                       \
      FAIL("%s: %s: %s", #call, vkssim_status_name(s_), vkssim_last_error());  \
  } while (0)

#endif
