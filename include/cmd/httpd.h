/* httpd.h: libmicrohttpd's functions serve calls, opened when serve
 * starts rather than at every start of logdown (httpd.c,
 * base/lazylib.h). */
#ifndef LOGDOWN_CMD_HTTPD_H
#define LOGDOWN_CMD_HTTPD_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

struct httpd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_callback) *create_response_from_callback;
	__typeof__(MHD_create_response_from_fd64) *create_response_from_fd64;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_suspend_connection) *suspend_connection;
	__typeof__(MHD_resume_connection) *resume_connection;
};

/* libmicrohttpd's functions; NULL when it cannot be loaded, *why (not
 * freed) saying which file is missing and which package installs it. */
const struct httpd *httpd(const char **why);

#endif
