/* logparse.c: being written. */
#include "logparse.h"
