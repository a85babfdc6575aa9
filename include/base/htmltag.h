/* htmltag.h: the start tags of a piece of HTML and their attributes'
 * values, as a browser's tokenizer reads them (WHATWG HTML, "Tokenization":
 * tag and attribute names ASCII case-insensitive, values quoted either way
 * or not at all, character references decoded), for the author's raw
 * HTML in a report and the headings of a rendered page.  Comments are
 * skipped, and so is the text of <script>, <style>, <textarea> and
 * <title>, which holds no tags.  Not a parser: no tree, no error
 * recovery beyond the tokenizer's own. */
#ifndef LOGDOWN_HTMLTAG_H
#define LOGDOWN_HTMLTAG_H

#include <stddef.h>

/* The '<' of the next start tag named `name` (ASCII, lowercase) in
 * [p, end), or NULL: "<img", "<IMG\n", "<img/" count, "<imgx" and "</img"
 * do not. */
const char *html_next_tag(const char *p, const char *end, const char *name);

/* After the start tag at `tag` (its '<'): past its '>' (outside quotes),
 * or end.  The next tag is looked for from there: an attribute's value
 * may hold text that looks like one ("<img alt='<img src=x>'>"). */
const char *html_tag_end(const char *tag, const char *end);

/* The value of the attribute `name` (ASCII, lowercase) of the start tag
 * at `tag` (its '<'; the tag ends at its '>' outside quotes, or at end),
 * its character references decoded (XML's five, &amp; &lt; &gt; &quot;
 * &apos;, and the numeric ones, &#39; &#x26;, a code point that is not
 * one as U+FFFD; any other named one is kept as written); "" for an
 * attribute without a value; NULL when the tag has none.  The first of
 * two of the same name counts, as in a browser.  *at (may be NULL): the
 * value's first byte in the tag (the name's for one without a value).
 * Caller frees. */
char *html_attr(const char *tag, const char *end, const char *name, const char **at);

#endif
