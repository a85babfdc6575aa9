/* copy.js: a Copy button on each code block of a report.
 *
 * The page reads the same without it: the button is made here, so a
 * reader without JavaScript sees no button that does nothing.  It
 * copies the <code>'s text: line numbers are drawn by CSS (counters,
 * docs/manual.md "Code blocks") and are no part of it.  From file://
 * and http:// the Clipboard API may be missing (it wants a secure
 * context): then a hidden textarea is selected and copied, as browsers
 * have long allowed inside a click. */
(function () {
	"use strict";

	function fallback(text) {
		var t = document.createElement("textarea");
		t.value = text;
		t.setAttribute("readonly", "");
		t.style.position = "fixed";
		t.style.top = "-100em";
		t.style.opacity = "0";
		document.body.appendChild(t);
		t.select();
		var ok = false;
		try {
			ok = document.execCommand("copy");
		} catch (e) {
			ok = false;
		}
		document.body.removeChild(t);
		return ok;
	}

	function copy(text) {
		if (navigator.clipboard && window.isSecureContext)
			return navigator.clipboard.writeText(text).then(
				function () { return true; },
				function () { return fallback(text); });
		return Promise.resolve(fallback(text));
	}

	function add(pre) {
		var code = pre.firstElementChild;
		if (!code || code.tagName !== "CODE")
			return;
		var box = document.createElement("div");
		box.className = "ld-codebox";
		pre.parentNode.insertBefore(box, pre);
		box.appendChild(pre);
		var b = document.createElement("button");
		b.type = "button";
		b.className = "ld-copy";
		b.textContent = "Copy";
		b.setAttribute("aria-label", "Copy the code");
		var timer = 0;
		b.addEventListener("click", function () {
			copy(code.textContent).then(function (ok) {
				b.textContent = ok ? "Copied" : "Press Ctrl+C";
				if (!ok) {
					var r = document.createRange();
					r.selectNodeContents(code);
					var s = window.getSelection();
					s.removeAllRanges();
					s.addRange(r);
				}
				clearTimeout(timer);
				timer = setTimeout(function () { b.textContent = "Copy"; }, 2000);
			});
		});
		box.appendChild(b);
	}

	function init() {
		var pres = document.querySelectorAll(".ld-content pre:not(.ld-log)");
		for (var i = 0; i < pres.length; i++)
			add(pres[i]);
	}

	if (document.readyState === "loading")
		document.addEventListener("DOMContentLoaded", init);
	else
		init();
})();
