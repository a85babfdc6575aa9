/* run.c: being written. */
#include "run.h"
