/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Harness shim: each policy file is compiled with HARNESS_INIT naming the
 * function that runs its module_init.
 */
#ifndef HARNESS_MODULE_H
#define HARNESS_MODULE_H

#include <linux/compiler.h>

struct module;
#define THIS_MODULE ((struct module *)0)
#define __init
#define __exit
#define module_init(fn) int HARNESS_INIT(void) { return fn(); }
#define module_exit(fn) void (*HARNESS_EXIT)(void) = fn
#define MODULE_AUTHOR(x)
#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_ALIAS(x)
#define EXPORT_SYMBOL_GPL(x)
#define EXPORT_SYMBOL(x)

#endif
