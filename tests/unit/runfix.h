/* runfix.h: runs made by hand in unit tests, as the Cerebras parser
 * would leave them for the seed log bs512.log.  The runs belong to the
 * caller (run_free()).  Include after <cmocka.h>. */
#ifndef LOGDOWN_TEST_RUNFIX_H
#define LOGDOWN_TEST_RUNFIX_H

#include <string.h>

#include "data/run.h"
#include "parse/valuetype.h"

/* Sets field name of r to text, as read on line. */
static inline void runfix_set(struct run *r, const char *name, const char *text, long line)
{
	struct datum d = datum_from_text(text, strlen(text), line);
	run_set_field(r, name, &d);
}

/* Appends a row of three cells, read on line, to s. */
static inline void runfix_row3(struct series *s, long line, const char *a, const char *b,
			       const char *c)
{
	struct datum cells[3] = {
		datum_from_text(a, strlen(a), line),
		datum_from_text(b, strlen(b), line),
		datum_from_text(c, strlen(c), line),
	};
	series_append(s, cells, line);
}

/* Adds to r the series "train" (step, loss, rate) of bs512.log's lines
 * 43 to 47, with a rate of "--" on line 44 and a loss of "n/a" on line
 * 46: cells that are not numbers. */
static inline void runfix_train(struct run *r)
{
	static const char *const cols[] = {"step", "loss", "rate"};
	struct series *s = run_add_series(r, "train", cols, 3);
	runfix_row3(s, 43, "100", "9.39062", "2983.97");
	runfix_row3(s, 44, "200", "8.50000", "--");
	runfix_row3(s, 45, "300", "7.75", "3001.5");
	runfix_row3(s, 46, "400", "n/a", "2990.25");
	runfix_row3(s, 47, "500", "7.12500", "3010.0");
}

#endif
