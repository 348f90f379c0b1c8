/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_COMMON_H
#define IBFM_TEST_COMMON_H

/* What every cmocka test file includes, in the order cmocka needs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#endif
