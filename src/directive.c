/* directive.c: being written. */
#include "directive.h"
