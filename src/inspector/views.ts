/**
 * The mocks' inspector: the HTML of a request in detail, of a lead's conversation and of a callback, served as
 * fragments that the page puts into its detail pane. Pure functions of the inspector's (already redacted) values;
 * every byte from the network goes through `html` (escaped), links are `#/…` routes of the page itself.
 */
import type { Conversation, ConversationEvent, ConversationJob } from './conversation.js';
import type { BodyDetail, CallbackDetail, RequestDetail } from './detail.js';
import type { Explanation, SectionedIssue } from './explain.js';
import type { Diagnosis } from '../signing/diagnose.js';
import type { RequestSummary } from './capture.js';
import { formatBytes, renderBody, renderHead } from '../output/html/bodies.js';
import { escapeHtml as escapeMarkup, html, type SafeHtml } from '../output/html/escape.js';
import { metaList } from '../output/html/page.js';
import { documentLabel } from '../spec/interfaces.js';
import { encodeLead } from './lead-path.js';
import { plural } from '../text.js';
import { formatDuration } from '../duration.js';

const route = {
  request: (id: number) => `#/requests/${id}`,
  callback: (id: number) => `#/callbacks/${id}`,
  conversation: (space: string, lead: string) => `#/conversations/${space}/${encodeLead(lead)}`,
};

/** A status's colour: ok below 300, warn below 500, fail above or without one (the page's script has it too). */
export function tone(status: number | undefined): string {
  if (status === undefined) return 'fail';
  return status < 300 ? 'ok' : status < 500 ? 'warn' : 'fail';
}

function body(detail: BodyDetail | undefined, absent: string): SafeHtml {
  if (detail === undefined) return html`<p class="muted">${absent}</p>`;
  return html`${detail.truncated ? html`<p class="notice">Only the first ${formatBytes(detail.kept)} of ${formatBytes(detail.bytes)} are kept.</p>` : ''}${renderBody({ bytes: detail.kept, text: detail.text, sha256: detail.sha256, hexPrefix: detail.hexPrefix })}`;
}

/**
 * A command and its copy button. The `pre` shows the command as escapeMarkup writes it (a control or bidi character
 * visibly, `\u202e`); when that is not the command itself, the exact text rides along in `data-copy-text` (copyText
 * copies it), as a JSON string in ASCII: an attribute cannot hold a NUL, a CR or a lone surrogate as such, and a
 * character reference to U+0080–U+009F is read as another character.
 */
function copyBlock(id: string, label: string, command: string): SafeHtml {
  return html`<div class="cmd"><div class="cmd-head"><b>${label}</b><button type="button" class="copy" data-copy="${id}">copy</button></div><pre class="cmd" id="${id}"${exactCopyText(command)}>${command}</pre></div>`;
}

function exactCopyText(command: string): SafeHtml | string {
  const shownAsIs = escapeMarkup(command) === command.replace(/[&<>"']/g, escapeMarkup) && !command.includes('\r');
  if (shownAsIs) return '';
  const ascii = JSON.stringify(command).replace(
    /[\u007f-\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return html` data-copy-text="${ascii}"`;
}

/** The time of day of an ISO date, to the millisecond (the page's script has it too). */
export function time(iso: string): string {
  return iso.length >= 23 ? iso.slice(11, 23) : iso;
}

/** A request in full: what the mock said, why, the request as received, the answer, and how to send it again. */
export function renderRequestDetail(detail: RequestDetail): SafeHtml {
  const { summary, request, answer, explanation, commands } = detail;
  const what = documentLabel(summary.interface, summary.event, 'no event type');
  const ids = [
    summary.event_id !== undefined ? html`<dt>event_id</dt><dd><code>${summary.event_id}</code></dd>` : '',
    summary.lead_id !== undefined
      ? html`<dt>lead_id</dt><dd><code>${summary.lead_id}</code> <a href="${route.conversation(summary.space ?? 'live', summary.lead_id)}">its conversation</a>${summary.lead_known === false ? ' (unknown lead: logged for reconciliation, §6.3)' : ''}</dd>`
      : '',
    summary.space !== undefined
      ? html`<dt>space</dt><dd>${summary.space}${summary.provider_code ? ` (X-CAI-Provider ${summary.provider_code})` : ''}</dd>`
      : '',
    summary.provider_job_id !== undefined
      ? html`<dt>provider_job_id</dt><dd><code>${summary.provider_job_id}</code></dd>`
      : '',
    request.remote_address !== undefined ? html`<dt>from</dt><dd>${request.remote_address}</dd>` : '',
  ];
  return html`<article class="request-detail" data-id="${summary.id}">
<h2><span class="status tone-${tone(summary.status)}">${summary.status}</span> <span class="verdict v-${summary.verdict}">${summary.verdict}</span> ${what}</h2>
<p class="muted">#${summary.id} · received ${summary.received_at}</p>
<dl class="meta">${ids}</dl>
${renderWhy(explanation)}
<h3>Request</h3>
${renderHead(`${request.method} ${request.target} HTTP/${request.http_version}`, request.headers)}
${request.headers_cut > 0 ? html`<p class="muted">${request.headers_cut} header lines past the bound are cut or left out.</p>` : ''}
${body(request.body, 'The body was not read: the headers alone decided the answer (the order of checks in docs/mocks.md).')}
<h3>Answer</h3>
${renderHead(`HTTP/1.1 ${answer.status}`, answer.headers)}
${body(answer.body, '(no body)')}
<h3>Send it again</h3>
${commands.replay ? copyBlock(`cmd-replay-${summary.id}`, 'cai replay (a fresh signature)', commands.replay) : ''}
${commands.curl ? copyBlock(`cmd-curl-${summary.id}`, 'curl, signed with cai sign when it runs', commands.curl) : ''}
${commands.notes.map((note) => html`<p class="muted">${note}</p>`)}
${commands.replay ? html`<p class="muted">The secret is named by its flag, never written out. The capture: <a href="/api/requests/${summary.id}/request.http" download>request.http</a>, the body: <a href="/api/requests/${summary.id}/body" download>body</a>.</p>` : ''}
</article>`;
}

/** Why: the mock's reason and message, the signature diagnosis of a 401, the validation errors of a 400. */
function renderWhy(explanation: Explanation): SafeHtml {
  const parts: SafeHtml[] = [];
  if (explanation.reason !== undefined)
    parts.push(html`<p class="reason"><code>${explanation.reason}</code>: ${explanation.message ?? ''}</p>`);
  const signature = explanation.signature;
  if (signature) {
    const facts: SafeHtml[] = [html`<dt>verdict</dt><dd><code>${signature.reason}</code>: ${signature.message}</dd>`];
    if (signature.timestamp !== undefined) {
      const skew =
        signature.skewSeconds === undefined
          ? ''
          : signature.skewSeconds === 0
            ? ', the second the mock received it'
            : signature.skewSeconds > 0
              ? `, ${signature.skewSeconds} s before the mock's clock`
              : `, ${-signature.skewSeconds} s after the mock's clock`;
      facts.push(
        html`<dt>X-CAI-Timestamp</dt><dd><code>${signature.timestamp}</code>${signature.timestampDate ? ` = ${signature.timestampDate}` : ''}${skew} (window ±${signature.windowSeconds} s, §5.5)</dd>`,
      );
    } else facts.push(html`<dt>X-CAI-Timestamp</dt><dd class="muted">missing</dd>`);
    facts.push(
      signature.signature !== undefined
        ? html`<dt>X-CAI-Signature</dt><dd><code>${signature.signature}</code></dd>`
        : html`<dt>X-CAI-Signature</dt><dd class="muted">missing</dd>`,
    );
    if (signature.checkedWith) facts.push(html`<dt>checked with</dt><dd>${signature.checkedWith}</dd>`);
    if (signature.body)
      facts.push(
        html`<dt>body</dt><dd>${formatBytes(signature.body.bytes)}, SHA-256 <code>${signature.body.sha256}</code></dd>`,
      );
    parts.push(html`<h4>Signature diagnosis (as <code>cai verify</code> explains it)</h4><dl class="meta">${facts}</dl>
${signature.note ? html`<p class="muted">${signature.note}</p>` : ''}
${signature.diagnoses.length > 0 ? html`<ul class="diagnoses">${signature.diagnoses.map(renderDiagnosis)}</ul>` : ''}`);
  }
  const validation = explanation.validation;
  if (validation && validation.errors.length > 0)
    parts.push(
      html`<h4>Validation errors (${validation.kind === 'job' ? '§2.2' : '§2.4–§2.7'})</h4>${issueTable(validation.errors)}`,
    );
  if (validation && validation.warnings.length > 0)
    parts.push(html`<h4>Warnings (accepted)</h4>${issueTable(validation.warnings)}`);
  if (parts.length === 0) return html``;
  return html`<section class="why${explanation.status >= 300 ? ' refused' : ''}"><h3>${explanation.status >= 300 ? 'Why it was refused' : 'Notes'}</h3>${parts}</section>`;
}

/** As `cai verify` prints it: "likely cause" for a mistake it recognised, the rest as they are. */
function renderDiagnosis(diagnosis: Diagnosis): SafeHtml {
  const plain = diagnosis.code === 'signature_over_other_content' || diagnosis.code === 'clock_skew';
  return html`<li data-code="${diagnosis.code}">${plain ? '' : html`<b>likely cause:</b> `}<span class="message">${diagnosis.message}</span></li>`;
}

function issueTable(issues: readonly SectionedIssue[]): SafeHtml {
  return html`<table class="data issues"><thead><tr><th>path</th><th>problem</th><th>expected</th><th>got</th><th>spec</th></tr></thead><tbody>${issues.map(
    (issue) =>
      html`<tr><td><code>${issue.path === '' ? '(document)' : issue.path}</code></td><td>${issue.message}</td><td>${issue.expected ?? ''}</td><td>${issue.received ?? ''}</td><td>${issue.sections.join(' ')}</td></tr>`,
  )}</tbody></table>`;
}

/** A lead's conversation: its job (provider mock), the messages in order, then the result, then what was refused. */
export function renderConversation(conversation: Conversation): SafeHtml {
  return html`<article class="conversation">
<h2>Conversation of <code>${conversation.lead_id}</code> <span class="space">${conversation.space}</span></h2>
${conversation.jobs.map(renderJob)}
<h3>Messages (${conversation.messages.length}, in order of occurred_at)</h3>
${conversation.messages.length === 0 ? html`<p class="muted">No message yet.</p>` : html`<ol class="chat">${conversation.messages.map(renderMessage)}</ol>`}
<h3>Result</h3>
${conversation.endings.length === 0 ? html`<p class="muted">No appointment or closing outcome yet (§3: the conversation ends in one).</p>` : html`<ol class="endings">${conversation.endings.map(renderEnding)}</ol>`}
${conversation.others.length > 0 ? html`<h3>Other events</h3><ol class="endings">${conversation.others.map(renderEnding)}</ol>` : ''}
${conversation.cut > 0 ? html`<p class="notice">${conversation.cut} more events are not shown.</p>` : ''}
${conversation.rejected.length > 0 ? html`<h3>Refused for this lead</h3>${rejectedTable(conversation.rejected)}` : ''}
</article>`;
}

function renderJob(job: ConversationJob): SafeHtml {
  const facts: [string, string | undefined][] = [
    ['event_id', job.event_id],
    ['provider_job_id', job.provider_job_id],
    ['assigned number', job.assigned_number_e164],
    ['branch_code', job.branch_code],
    ['contact', job.contact_name],
    ['intent', job.intent],
    ['notes', job.notes],
    ['callback_url', job.callback_url],
  ];
  return html`<section class="job"><h3>Contact job <a href="${route.request(job.id)}">#${job.id}</a> <span class="muted">received ${time(job.received_at)}</span></h3>${metaList(facts.filter((fact): fact is [string, string] => fact[1] !== undefined))}</section>`;
}

function link(event: ConversationEvent): SafeHtml {
  return event.source === 'request'
    ? html`<a href="${route.request(event.id)}">#${event.id}</a>`
    : html`<a href="${route.callback(event.id)}">callback #${event.id}</a>`;
}

function delivery(event: ConversationEvent): SafeHtml | string {
  const sent = event.delivery;
  if (!sent)
    return event.duplicates ? html` <span class="muted">· ${plural(event.duplicates, 'duplicate')}</span>` : '';
  const retries = sent.retries.length > 0 ? `, ${plural(sent.retries.length, 'retry', 'retries')}` : '';
  return html` <span class="delivery tone-${sent.outcome === 'accepted' ? 'ok' : 'fail'}">→ ${sent.status ?? 'no answer'} ${sent.outcome}, ${plural(sent.attempts, 'attempt')}${retries}${sent.error ? `: ${sent.error}` : ''}</span>`;
}

function renderMessage(event: ConversationEvent): SafeHtml {
  const side = event.direction === 'inbound' ? 'inbound' : 'outbound';
  const meta = [
    event.occurred_at ?? `received ${event.at}`,
    event.author,
    event.channel,
    event.from_number_e164 ? `from ${event.from_number_e164}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
  return html`<li class="msg ${side}"><div class="bubble"><div class="who muted">${meta}</div><div class="text">${event.text ?? ''}</div><div class="muted small">${link(event)} <code>${event.event_id}</code>${delivery(event)}</div></div></li>`;
}

function renderEnding(event: ConversationEvent): SafeHtml {
  const facts = [
    event.outcome ? `outcome ${event.outcome}` : undefined,
    event.attempts !== undefined ? plural(event.attempts, 'attempt') : undefined,
    event.scheduled_at ? `scheduled ${event.scheduled_at}` : undefined,
    event.branch_code ? `branch ${event.branch_code}` : undefined,
    event.service ? `service ${event.service}` : undefined,
    event.notes,
  ].filter((part) => part !== undefined);
  return html`<li class="ending"><b>${event.event}</b> ${facts.join(' · ')} <div class="muted small">${event.occurred_at ?? `received ${event.at}`} · ${link(event)} <code>${event.event_id}</code>${delivery(event)}</div></li>`;
}

function rejectedTable(rows: readonly RequestSummary[]): SafeHtml {
  return html`<table class="data"><thead><tr><th>#</th><th>time</th><th>status</th><th>reason</th><th>event_id</th></tr></thead><tbody>${rows.map(
    (row) =>
      html`<tr><td><a href="${route.request(row.id)}">#${row.id}</a></td><td>${time(row.received_at)}</td><td>${row.status}</td><td>${row.reason ?? row.verdict}</td><td><code>${row.event_id ?? ''}</code></td></tr>`,
  )}</tbody></table>`;
}

/** An event the provider mock sent: its headers, body, and answer (status, attempts, retries). */
export function renderCallbackDetail(detail: CallbackDetail): SafeHtml {
  const { summary } = detail;
  return html`<article class="callback-detail" data-id="${summary.id}">
<h2><span class="status tone-${summary.outcome === 'accepted' ? 'ok' : 'fail'}">${summary.status ?? 'no answer'}</span> <span class="verdict v-${summary.outcome}">${summary.outcome}</span> ${summary.event}</h2>
<p class="muted">callback #${summary.id} · sent ${summary.sent_at} to <code>${summary.url}</code></p>
<dl class="meta"><dt>event_id</dt><dd><code>${summary.event_id}</code></dd><dt>lead_id</dt><dd><code>${summary.lead_id}</code> <a href="${route.conversation('live', summary.lead_id)}">its conversation</a></dd><dt>provider_job_id</dt><dd><code>${summary.provider_job_id}</code></dd><dt>attempts</dt><dd>${summary.attempts}</dd>${summary.error ? html`<dt>error</dt><dd>${summary.error}</dd>` : ''}</dl>
<h3>Retries</h3>
${detail.retries.length === 0 ? html`<p class="muted">None: the first attempt got the final answer.</p>` : html`<table class="data"><thead><tr><th>attempt</th><th>failed with</th><th>next in</th><th>at</th></tr></thead><tbody>${detail.retries.map((retry) => html`<tr><td>${retry.attempt}</td><td>${retry.reason}</td><td>${formatDuration(retry.wait_ms)}</td><td>${time(retry.at)}</td></tr>`)}</tbody></table>`}
<h3>Request sent</h3>
${renderHead(`POST ${summary.url}`, detail.headers)}
<p class="muted">X-CAI-Timestamp and X-CAI-Signature are computed afresh for each attempt (§5).</p>
${body(detail.body, '(no body)')}
</article>`;
}
