/**
 * The copy button of the pages (the conformance report's repro command, the inspector's replay and curl lines), as
 * one function both page scripts embed: copy the text of `pre` to the clipboard, or, where the browser refuses
 * (a file:// page, an old browser), select it for the reader to copy, and say which on the button for a moment.
 */
export const COPY_TEXT_FUNCTION = `function copyText(button, pre, selectedLabel) {
    var done = function (label) { button.textContent = label; setTimeout(function () { button.textContent = 'copy'; }, 1500); };
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(pre);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      done(selectedLabel);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(pre.textContent).then(function () { done('copied'); }, select);
    else select();
  }`;
