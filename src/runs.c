/* runs.c: being written. */
#include "runs.h"
