/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim for drivers/md/dm.h: nothing a policy needs. */
#include <linux/device-mapper.h>
