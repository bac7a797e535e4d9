// The bridge evening's entry page (templates/games/bridge/entry.html): changing the evening's setup
// (movement, tables, boards, what is entered) redraws the travellers through the "Set up" button
// once the focus leaves the evening's fields. Enter moving from cell to cell is static/js/entry.js.
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
})();
