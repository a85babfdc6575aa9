/* lazylib.c: a shared library opened with dlopen() the first time it
 * is needed (lazylib.h says why and how). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lazylib.h"

/* One load at a time, and each library's once. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* The soname, overridden for the tests: LOGDOWN_TEST_LAZYLIB=OLD=NEW
 * opens NEW where OLD is asked for (a missing library, without
 * removing the real one). */
static const char *soname_of(const struct lazylib *l)
{
	const char *t = getenv("LOGDOWN_TEST_LAZYLIB");
	size_t n = strlen(l->soname);
	if (t && strncmp(t, l->soname, n) == 0 && t[n] == '=')
		return t + n + 1;
	return l->soname;
}

static void load(struct lazylib *l)
{
	const char *name = soname_of(l);
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(l->why, sizeof l->why, "cannot load %s (%s); install Debian's %s", name,
			 e ? e : "not found", l->package);
		return;
	}
	for (const struct lazysym *s = l->syms; s->name; s++) {
		dlerror();
		void *f = dlsym(h, s->name);
		if (!f) {
			snprintf(l->why, sizeof l->why,
				 "%s has no function %s: it is older than logdown needs; install "
				 "Debian's %s",
				 name, s->name, l->package);
			return;
		}
		/* a function pointer's bytes, as POSIX has dlsym() give them */
		memcpy(s->slot, &f, sizeof f);
	}
	l->ok = true;
}

bool lazylib_load(struct lazylib *l, const char **why)
{
	pthread_mutex_lock(&load_lock);
	if (!l->tried)
		load(l);
	l->tried = true;
	bool ok = l->ok;
	pthread_mutex_unlock(&load_lock);
	*why = ok ? NULL : l->why;
	return ok;
}
