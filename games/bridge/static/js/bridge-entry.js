// The bridge evening's entry page (templates/games/bridge/entry.html): changing the evening's setup
// (movement, tables, boards, scoring, what is entered) redraws the travellers through the "Set up" button
// once the focus leaves the evening's fields; a board's live preview that finds a score the board cannot
// have marks that cell. Enter moving from cell to cell is static/js/entry.js.
(function () {
  "use strict";

  // A changed setup field redraws the travellers once the focus leaves the evening's fieldset, so a
  // scorer typing tables, then boards, is not overtaken by a redraw of the first (which would drop
  // what is typed meanwhile). The "Set up" button redraws at once.
  var changed = false;
  document.addEventListener("change", function (event) {
    var element = event.target;
    if (element.matches && element.matches("form[data-entry] [data-refresh]")) changed = true;
  });
  document.addEventListener("focusout", function (event) {
    var fieldset = event.target.closest ? event.target.closest("form[data-entry] fieldset.evening") : null;
    if (!fieldset || !changed || (event.relatedTarget && fieldset.contains(event.relatedTarget))) return;
    changed = false;
    var form = fieldset.closest("form");
    var button = form.querySelector('button[name="action"][value="refresh"]');
    if (button) button.click(); // a click, so htmx sends the button's action (requestSubmit would not)
  });
  document.addEventListener("htmx:afterSwap", function () {
    changed = false;
  });

  // The preview of a board names the cell it finds wrong (data-cell: a score the board cannot have at its
  // vulnerability, a result that does not read): that cell is marked invalid and described by the preview,
  // at once, before saving; a cell the preview marked is cleared when its board reads again. What the
  // server marked on saving (the cleaner's messages) stays until the next save.
  function describedBy(input, id, present) {
    var ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (one) {
      return one && one !== id;
    });
    if (present) ids.push(id);
    if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
    else input.removeAttribute("aria-describedby");
  }

  function flagPreviews() {
    document.querySelectorAll("fieldset.traveller .board-preview").forEach(function (preview) {
      var fieldset = preview.closest("fieldset.traveller");
      fieldset.querySelectorAll("input[data-preview-flag]").forEach(function (input) {
        if (input.id === preview.getAttribute("data-cell")) return;
        input.removeAttribute("data-preview-flag");
        input.removeAttribute("aria-invalid");
        describedBy(input, preview.id, false);
      });
      var name = preview.getAttribute("data-cell");
      var input = name ? document.getElementById(name) : null;
      if (!input || input.getAttribute("aria-invalid") === "true") return;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("data-preview-flag", "");
      describedBy(input, preview.id, true);
    });
  }
  document.addEventListener("htmx:afterSettle", flagPreviews);
})();
