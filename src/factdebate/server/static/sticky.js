// @ts-check
/* The top bar stays on screen while the page scrolls (app.css, wide screens), so anything scrolled into view
   (an opened results row, a focused row, a debate) would land under it. The bar's height, kept in
   --sticky-top, is html's scroll-padding-top; it is 0 where the bar is not sticky (a phone). */

const bar = /** @type {HTMLElement | null} */ (document.querySelector(".topbar"));

function measure() {
  const sticky = bar !== null && getComputedStyle(bar).position === "sticky";
  document.documentElement.style.setProperty("--sticky-top", (sticky && bar ? bar.offsetHeight : 0) + "px");
}

if (bar) new ResizeObserver(measure).observe(bar);
addEventListener("resize", measure);
measure();
