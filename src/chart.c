/* chart.c: being written. */
#include "chart.h"
