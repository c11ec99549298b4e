/**
 * The copy button of the pages (the conformance report's repro command, the inspector's replay and curl lines), as
 * one function both page scripts embed: copy the text of `pre` to the clipboard, or, where the browser refuses
 * (a file:// page, an old browser), select it for the reader to copy, and say which on the button for a moment.
 * The text is the `pre`'s `data-copy-text` when it has one (the exact command as a JSON string, where the `pre`
 * shows control or bidi characters escaped, src/inspector/views.ts), else what it shows. A selection can only be
 * what is shown: the button then says that it is the escaped form.
 */
export const COPY_TEXT_FUNCTION = `function copyText(button, pre, selectedLabel) {
    var done = function (label) { button.textContent = label; setTimeout(function () { button.textContent = 'copy'; }, 1500); };
    var exact = pre.getAttribute('data-copy-text');
    var text = exact === null ? pre.textContent : JSON.parse(exact);
    var select = function () {
      var range = document.createRange();
      range.selectNodeContents(pre);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      done(exact === null ? selectedLabel : selectedLabel + ' (shown escaped, not exact)');
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(function () { done('copied'); }, select);
    else select();
  }`;
