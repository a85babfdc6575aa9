/* provenance.c: being written. */
#include "provenance.h"
