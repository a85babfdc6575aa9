/* config.c: site.yaml, checked key by key. */
#include "data/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fsutil.h"
#include "data/keys.h"
#include "data/limit.h"
#include "base/util.h"
#include "data/yamldoc.h"

static const char *const config_keys[] = {
	"title", "author", "base_url", "output", "paper", "parsers", "limits", "bibliography",
	"citation_style", "toc", "number_sections", "footer_hash", "allow_numbers", NULL,
};
static const struct keys_words config_words = {true, "site.yaml key", "known keys"};

/* Reads a scalar that should be text; numbers keep their text. */
static bool take_text(struct diag *d, const char *key, const struct value *v, char **dst)
{
	if (v->kind != VALUE_STRING && v->kind != VALUE_NUMBER) {
		diag_error(d, v->loc, "'%s' must be text, not %s", key, value_kind_name(v->kind));
		return false;
	}
	struct buf b = BUF_INIT;
	value_put_text(&b, v);
	free(*dst);
	*dst = buf_detach(&b);
	return true;
}

static bool take_parsers(struct config *c, const struct value *v, struct diag *d)
{
	if (v->kind == VALUE_STRING) {
		c->parsers = xcalloc(2, sizeof *c->parsers);
		c->parsers[0] = xstrdup(v->text);
		return true;
	}
	if (v->kind != VALUE_LIST) {
		diag_error(d, v->loc, "'parsers' must be a folder or a list of folders");
		return false;
	}
	c->parsers = xcalloc(v->count + 1, sizeof *c->parsers);
	for (size_t i = 0; i < v->count; i++) {
		if (v->items[i]->kind != VALUE_STRING) {
			diag_error(d, v->items[i]->loc, "'parsers' entries must be folder paths");
			strv_free(c->parsers);
			c->parsers = NULL;
			return false;
		}
		c->parsers[i] = xstrdup(v->items[i]->text);
	}
	return true;
}

bool config_load(struct config *c, const char *root, struct diag *d)
{
	memset(c, 0, sizeof *c);
	c->path = path_join(root, "site.yaml");
	c->title = xstrdup("Reports");
	c->author = xstrdup("");
	c->base_url = xstrdup("/");
	c->output = xstrdup("_site");
	c->paper = xstrdup("a4");
	c->toc = -1;
	/* The caps start from their defaults and the environment on every
	 * load (serve loads again after an edit); site.yaml's own YAML is
	 * read under those. */
	bool env_ok = limit_reset(d);

	struct buf text = BUF_INIT;
	if (!file_read(c->path, &text, NULL)) {
		bool absent = errno == ENOENT;
		if (!absent)
			diag_error(d, loc_line(c->path, 0), "cannot read: %s", strerror(errno));
		buf_free(&text);
		return absent && env_ok;
	}
	diag_add_source(d, c->path, buf_data(&text), text.len);
	c->raw = yamldoc_parse(buf_data(&text), text.len, c->path, 0, d);
	bool ok = c->raw != NULL;
	if (ok && c->raw->kind != VALUE_MAP && c->raw->kind != VALUE_NULL) {
		diag_error(d, c->raw->loc, "site.yaml must be a map of settings (title: ..., output: ...)");
		ok = false;
	}
	size_t nkeys = ok && c->raw->kind == VALUE_MAP ? c->raw->count : 0;
	for (size_t i = 0; i < nkeys; i++) {
		const char *key = c->raw->keys[i];
		const struct value *v = c->raw->items[i];
		if (strcmp(key, "title") == 0)
			ok = take_text(d, key, v, &c->title) && ok;
		else if (strcmp(key, "author") == 0)
			ok = take_text(d, key, v, &c->author) && ok;
		else if (strcmp(key, "base_url") == 0)
			ok = take_text(d, key, v, &c->base_url) && ok;
		else if (strcmp(key, "output") == 0)
			ok = take_text(d, key, v, &c->output) && ok;
		else if (strcmp(key, "paper") == 0) {
			bool taken = take_text(d, key, v, &c->paper);
			ok = taken && ok;
			/* A4 and Letter as people write them */
			if (taken && (strcasecmp(c->paper, "a4") == 0 ||
				      strcasecmp(c->paper, "letter") == 0))
				for (char *s = c->paper; *s; s++)
					*s = (char)tolower((unsigned char)*s);
			if (taken && strcmp(c->paper, "a4") != 0 && strcmp(c->paper, "letter") != 0) {
				diag_error(d, v->loc, "paper must be 'a4' or 'letter', not '%s'", c->paper);
				free(c->paper);
				c->paper = xstrdup("a4");
				ok = false;
			}
		} else if (strcmp(key, "toc") == 0 || strcmp(key, "number_sections") == 0 ||
			   strcmp(key, "footer_hash") == 0) {
			if (v->kind != VALUE_BOOL) {
				diag_error(d, v->loc, "'%s' must be true or false", key);
				ok = false;
			} else if (key[0] == 't') {
				c->toc = v->boolean;
			} else if (key[0] == 'n') {
				c->number_sections = v->boolean;
			} else {
				c->footer_hash = v->boolean;
			}
		} else if (strcmp(key, "allow_numbers") == 0) {
			if (v->kind != VALUE_BOOL) {
				diag_error(d, v->loc, "'%s' must be true or false", key);
				ok = false;
			} else {
				c->allow_numbers = v->boolean;
			}
		} else if (strcmp(key, "parsers") == 0)
			ok = take_parsers(c, v, d) && ok;
		else if (strcmp(key, "limits") == 0)
			ok = limit_configure(v, d) && ok;
		else
			keys_check_one(c->raw, i, config_keys, NULL, &config_words, d);
	}
	/* The diagnostics may quote site.yaml later (from disk): the
	 * buffer goes away here. */
	diag_forget_source(d, c->path);
	buf_free(&text);
	return ok && env_ok;
}

void config_free(struct config *c)
{
	free(c->path);
	free(c->title);
	free(c->author);
	free(c->base_url);
	free(c->output);
	free(c->paper);
	strv_free(c->parsers);
	value_free(c->raw);
	memset(c, 0, sizeof *c);
}
