// The book's own behaviour on top of sphinx-book-theme. Loaded with `defer`: it runs once the page
// is parsed and before the theme's scripts, which pydata-sphinx-theme defers to the end of <body>.
"use strict";

// sphinx-book-theme shows the sidebar buttons in the article header and hides the navbar's copies
// at every width, but pydata-sphinx-theme wires only the first button of each kind, the hidden copy
// (pydata/pydata-sphinx-theme#2451). Without the copies the themes wire the visible buttons
// themselves: a dialog on narrow screens, a collapsing primary sidebar on wide ones.
for (const kind of ["primary-toggle", "secondary-toggle"]) {
  if (document.querySelector(`.bd-header-article .${kind}`)) {
    document.querySelectorAll(`.bd-header .${kind}`).forEach((copy) => copy.remove());
  }
}

// On a phone the sidebars open as dialogs over the page; one stays open after a link in it took the
// reader to a section of the page behind, hiding it. Following a link closes the dialog.
document.querySelectorAll("#pst-primary-sidebar-modal, #pst-secondary-sidebar-modal").forEach((dialog) => {
  dialog.addEventListener("click", (event) => event.target.closest("a[href]") && dialog.close());
});

// The language switcher keeps the reader's place: each of its links (one per other language) points
// at the section in view, by an id all languages share (the page's explicit labels, listed by
// execbook/src/execbook/sphinxext/bilingual.py).
function keepPlaceAcrossLanguages() {
  const links = [...document.querySelectorAll(".book-language-switch")];
  if (!links.length) return;
  const shared = new Set((links[0].dataset.anchors || "").split(" ").filter(Boolean));
  const places = [...document.querySelectorAll("#main-content [id]")].filter((e) => shared.has(e.id));
  const update = () => {
    let place = places.filter((e) => e.getBoundingClientRect().top <= window.innerHeight / 3).pop();
    // The anchor the reader followed, while on screen (a short last section never reaches the top)
    const followed = places.find((e) => "#" + e.id === location.hash);
    const top = followed ? followed.getBoundingClientRect().top : -1;
    if (top >= 0 && top < window.innerHeight) place = followed;
    // The title's section needs no anchor: the page opens there
    links.forEach((link) => { link.hash = place && !place.querySelector("h1") ? place.id : ""; });
  };
  let pending = false;
  window.addEventListener("scroll", () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(() => { pending = false; update(); });
    }
  }, { passive: true });
  window.addEventListener("hashchange", update);
  update();
}

// The root page (docs/root/index.html) sends a returning reader to the language they chose last:
// choosing a language here is that choice. (The same key as the root page's; nothing is stored
// when the browser refuses storage.)
function rememberLanguageChoice() {
  document.querySelectorAll(".book-language-switch").forEach((link) => link.addEventListener("click", () => {
    try {
      localStorage.setItem("book-language", link.hreflang);
    } catch (error) { /* storage off: the root page falls back to the browser's language */ }
  }));
}

// A printed page shows its dropdowns (hints, hidden outputs) open, which CSS cannot do for
// <details> (execbook/src/execbook/sphinxext/static/print.css hides the rest); after printing they close again.
function openDropdownsForPrint() {
  const opened = new Set();  // (a second beforeprint before the afterprint adds none)
  window.addEventListener("beforeprint", () => {
    document.querySelectorAll("details:not([open])").forEach((details) => {
      details.open = true;
      opened.add(details);
    });
  });
  window.addEventListener("afterprint", () => {
    opened.forEach((details) => { details.open = false; });
    opened.clear();
  });
}

// Accessible names that contradict the visible text (axe: label-content-name-mismatch): the search
// field's aria-label leaves out its Ctrl+K, and MyST-NB names every "Show code cell source" toggle
// "Toggle hidden content", in English on both languages. Their visible text names them.
function nameByVisibleText() {
  document.querySelectorAll(".search-button-field[aria-label], details.hide > summary[aria-label]")
    .forEach((element) => element.removeAttribute("aria-label"));
}

// A wide or long table scrolls in its own box: a keyboard must reach the box to scroll it (axe:
// scrollable-region-focusable), as the theme does for code blocks and cell outputs.
function tabStopsOnScrollingTables() {
  const update = () => document.querySelectorAll(".book-compat-scroll").forEach((box) => {
    box.tabIndex = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
  });
  window.addEventListener("resize", update);
  update();
}

keepPlaceAcrossLanguages();
rememberLanguageChoice();
openDropdownsForPrint();
nameByVisibleText();
tabStopsOnScrollingTables();
