/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: dm-block-manager.h only needs the types. */
#include <linux/device-mapper.h>
