/* test_lazylib.c: a shared library opened when first needed
 * (base/lazylib.c): its functions bound with their own types, once; a
 * library or a function that is missing named, with the package to
 * install, and the load not tried again; the tests' override of a
 * soname. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/lazylib.h"

static struct {
	__typeof__(cos) *cos;
	__typeof__(ldexp) *ldexp;
} m;

static const struct lazysym m_syms[] = {{"cos", &m.cos}, {"ldexp", &m.ldexp}, {NULL, NULL}};

static void a_library_is_bound_once_with_its_functions_types(void **state)
{
	(void)state;
	struct lazylib lib = {.soname = "libm.so.6", .package = "libc6", .syms = m_syms};
	const char *why = "unset";
	assert_true(lazylib_load(&lib, &why));
	assert_null(why);
	assert_true(m.cos(0.0) == 1.0);
	assert_true(m.ldexp(3.0, 4) == 48.0);
	/* loaded: the second call binds nothing again */
	m.cos = NULL;
	assert_true(lazylib_load(&lib, &why));
	assert_null(m.cos);
}

static void a_missing_library_is_named_with_its_package(void **state)
{
	(void)state;
	struct lazylib lib = {.soname = "liblogdown-nowhere.so.9", .package = "liblogdown-nowhere9",
			      .syms = m_syms};
	const char *why = NULL;
	assert_false(lazylib_load(&lib, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "cannot load liblogdown-nowhere.so.9 ("));
	assert_non_null(strstr(why, "); install Debian's liblogdown-nowhere9"));
	/* not tried again: the same answer */
	const char *again = NULL;
	assert_false(lazylib_load(&lib, &again));
	assert_ptr_equal(again, why);
}

static void a_missing_function_is_named(void **state)
{
	(void)state;
	static void (*none)(void);
	static const struct lazysym syms[] = {{"cos", &m.cos},
					      {"logdown_no_such_function", &none},
					      {NULL, NULL}};
	struct lazylib lib = {.soname = "libm.so.6", .package = "libc6", .syms = syms};
	const char *why = NULL;
	assert_false(lazylib_load(&lib, &why));
	assert_string_equal(why, "libm.so.6 has no function logdown_no_such_function: it is "
				 "older than logdown needs; install Debian's libc6");
	assert_null(none);
}

static void the_tests_override_names_another_file(void **state)
{
	(void)state;
	setenv("LOGDOWN_TEST_LAZYLIB", "libm.so.6=liblogdown-gone.so.1", 1);
	struct lazylib gone = {.soname = "libm.so.6", .package = "libc6", .syms = m_syms};
	const char *why = NULL;
	assert_false(lazylib_load(&gone, &why));
	assert_non_null(strstr(why, "cannot load liblogdown-gone.so.1 ("));
	/* another soname is not overridden: a prefix is not a match */
	setenv("LOGDOWN_TEST_LAZYLIB", "libm.so=liblogdown-gone.so.1", 1);
	struct lazylib kept = {.soname = "libm.so.6", .package = "libc6", .syms = m_syms};
	assert_true(lazylib_load(&kept, &why));
	unsetenv("LOGDOWN_TEST_LAZYLIB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_library_is_bound_once_with_its_functions_types),
		cmocka_unit_test(a_missing_library_is_named_with_its_package),
		cmocka_unit_test(a_missing_function_is_named),
		cmocka_unit_test(the_tests_override_names_another_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
