/**
 * The error reference as a plain HTML page, for a service run without the dashboard
 * (`AMP_NO_NEXT=1`): every error body's `doc_url` points at `/docs/errors#<code>`, and this page
 * keeps those links alive there. The dashboard's page (app/docs/errors) renders the same entries.
 */
import { ERROR_REFERENCE, RETRY_LABELS } from '../../contract/error-docs';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function section(entry: (typeof ERROR_REFERENCE)[number]): string {
  const fields = entry.fields.length
    ? `<h3>Fields</h3><dl>${entry.fields.map((f) => `<dt><code>${escapeHtml(f.name)}</code></dt><dd>${escapeHtml(f.what)}</dd>`).join('')}</dl>`
    : '';
  const headers = entry.headers.length ? `<p>Headers: <code>${entry.headers.map(escapeHtml).join(', ')}</code></p>` : '';
  return (
    `<section id="${entry.code}"><h2><code>${entry.code}</code> (HTTP ${entry.status})</h2>` +
    `<p><strong>${escapeHtml(RETRY_LABELS[entry.retry])}.</strong> ${escapeHtml(entry.meaning)}</p>` +
    `<p><strong>What to do:</strong> ${escapeHtml(entry.action)}</p>${fields}${headers}</section>`
  );
}

export function errorReferenceHtml(): string {
  const index = ERROR_REFERENCE.map((e) => `<li><a href="#${e.code}"><code>${e.code}</code></a> ${e.status}</li>`).join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Errors</title></head><body><main>' +
    '<h1>Errors</h1><p>Every non-2xx answer of the API has a JSON body <code>{ error, message, request_id, doc_url }</code> ' +
    'plus the fields of its code. <code>error</code> is the code below, <code>doc_url</code> links its section here, and ' +
    '<code>request_id</code> repeats the <code>X-Request-Id</code> header (quote it when you report a problem). ' +
    'The API reference is <a href="/api/openapi.json">/api/openapi.json</a>.</p>' +
    `<nav aria-label="Codes"><ul>${index}</ul></nav>${ERROR_REFERENCE.map(section).join('')}</main></body></html>`
  );
}
