/* format.c: being written. */
#include "format.h"
