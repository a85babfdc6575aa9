/* httpd.c: libmicrohttpd's functions, opened when serve starts
 * (httpd.h). */
#include "cmd/httpd.h"

#include "base/lazylib.h"

static struct httpd fns;

static const struct lazysym syms[] = {
	{"MHD_start_daemon", &fns.start_daemon},
	{"MHD_stop_daemon", &fns.stop_daemon},
	{"MHD_create_response_from_buffer", &fns.create_response_from_buffer},
	{"MHD_create_response_from_callback", &fns.create_response_from_callback},
	{"MHD_create_response_from_fd64", &fns.create_response_from_fd64},
	{"MHD_add_response_header", &fns.add_response_header},
	{"MHD_queue_response", &fns.queue_response},
	{"MHD_destroy_response", &fns.destroy_response},
	{"MHD_lookup_connection_value", &fns.lookup_connection_value},
	{"MHD_suspend_connection", &fns.suspend_connection},
	{"MHD_resume_connection", &fns.resume_connection},
	{NULL, NULL},
};

#ifndef MHD_SONAME
#define MHD_SONAME "libmicrohttpd.so.12"
#endif

static struct lazylib lib = {.soname = MHD_SONAME, .package = "libmicrohttpd12", .syms = syms};

const struct httpd *httpd(const char **why)
{
	return lazylib_load(&lib, why) ? &fns : NULL;
}
