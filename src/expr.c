/* expr.c: being written. */
#include "expr.h"
