/* logdown: the contents rail marks the section being read.  The
 * current section is the last heading above the top quarter of the
 * window (the whole report read: the last one).  No framework: an
 * IntersectionObserver says when a heading crosses that line, and the
 * headings are measured again then.  Without this script the rail is a plain
 * list of links. */
(function () {
	"use strict";
	var rail = document.querySelector(".ld-toc-rail");
	if (!rail || !("IntersectionObserver" in window))
		return;
	var links = [], heads = [];
	rail.querySelectorAll("a[href^='#']").forEach(function (a) {
		var h = document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)));
		if (h) {
			links.push(a);
			heads.push(h);
		}
	});
	if (!heads.length)
		return;
	var current = -1;
	function update() {
		var line = window.innerHeight / 4, k = 0;
		for (var i = 0; i < heads.length; i++)
			if (heads[i].getBoundingClientRect().top <= line)
				k = i;
		var root = document.documentElement;
		if (window.innerHeight + window.scrollY >= root.scrollHeight - 2)
			k = heads.length - 1;
		if (k === current)
			return;
		if (current >= 0)
			links[current].removeAttribute("aria-current");
		links[k].setAttribute("aria-current", "location");
		current = k;
	}
	/* the band from far above the window down to the line: a heading
	 * enters it when it goes up past the line, however far a jump
	 * takes it */
	var line = new IntersectionObserver(update, { rootMargin: "100000px 0px -75% 0px" });
	heads.forEach(function (h) { line.observe(h); });
	/* the end of the page, where the last headings may never reach the line */
	var foot = document.querySelector(".ld-site-footer");
	if (foot)
		new IntersectionObserver(update).observe(foot);
	update();
})();
