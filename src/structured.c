/* structured.c: being written. */
#include "structured.h"
