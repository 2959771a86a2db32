// Types of mcp-wasm-client/dialog: a ready-made, framework-free input dialog for
// elicitation requests. Import it only where there is a DOM (pages); importing it
// elsewhere is harmless, calling it needs `document`.
import type { ElicitRequestParams, ElicitResult, InputContext } from '../index.js';

export type { ElicitRequestParams, ElicitResult, InputContext };

/** Texts of the dialog (English by default). */
export interface ElicitationDialogLabels {
  /** Heading of a form request. Default "Input requested". */
  title: string;
  /** Heading of a URL request. Default "Open a page?". */
  urlTitle: string;
  submit: string;
  decline: string;
  cancel: string;
  /** Accessible name of the × button. */
  close: string;
  /** The consent button of a URL request (the host is appended). Default "Open page". */
  open: string;
  /** Read by screen readers after a required field's name. Default "required". */
  required: string;
}

export interface ElicitationDialogOptions {
  /** A name for the server, shown beside the host of `ctx.serverUrl` ("“name” at host asks"),
   *  or alone when there is no `ctx.serverUrl`. The host is always shown: a name (above all
   *  the server's own `serverInfo`) is not who asks. */
  serverName?: string;
  /** The heading (overrides `labels.title` / `labels.urlTitle`). */
  title?: string;
  /** Where the `<dialog>` element is appended. Default: `document.body`. A dialog that leaves
   *  the document (its container removed) resolves `{ action: 'cancel' }` and the next is shown. */
  container?: HTMLElement;
  /**
   * Opens the URL of a URL-mode request, called only after the person's explicit consent.
   * Default: `window.open(url, '_blank', 'noopener,noreferrer')`. The dialog never fetches the URL.
   */
  openUrl?: (url: string) => void;
  /**
   * Add the default styles once per document. Default true. They are a constructed stylesheet
   * (`document.adoptedStyleSheets`, allowed by a Content-Security-Policy without
   * 'unsafe-inline'), or a `<style id="mcp-elicitation-dialog-styles">` where that is missing.
   */
  injectStyles?: boolean;
  /** Extra class names on the `<dialog class="mcp-elicit">` element. */
  className?: string;
  labels?: Partial<ElicitationDialogLabels>;
}

/**
 * Shows a modal dialog for an `elicitation/create` request and resolves with the person's answer.
 *
 * - Form mode: fields built from `requestedSchema` (string, number, integer, boolean, single and
 *   multi-select enums with or without titles), defaults pre-filled, required fields marked, and
 *   inline messages for what the client would refuse (types, required, minimum/maximum,
 *   minLength/maxLength, minItems/maxItems, formats email/uri/date/date-time; an integer past
 *   ±(2^53 − 1), which a number cannot hold exactly). Submit resolves
 *   `{ action: 'accept', content }`; empty optional fields are left out.
 * - URL mode: the full URL as the browser reads it, with its domain highlighted, and a warning for
 *   punycode domains (`ctx.isPunycode` or an `xn--` label). The page is opened in a new tab
 *   (`noopener,noreferrer`) only when the person presses "Open page", which resolves
 *   `{ action: 'accept' }`. What the client's own URL check refuses cannot be opened (for a URL
 *   not given as `ctx.url`): backslashes, spaces, control and invisible (bidi, zero-width)
 *   characters, user names or passwords, schemes other than https (http only on localhost).
 * - Decline resolves `{ action: 'decline' }`; Cancel, the × button and Escape resolve `{ action: 'cancel' }`.
 * - `ctx.signal` firing closes the dialog (or drops the request while it waits) with `cancel`.
 * - One dialog at a time: a call made while a dialog is open waits until it closes (the open
 *   dialog says how many are waiting). Focus is trapped in the dialog and returned to where it
 *   was when the last queued dialog closes.
 *
 * Themable with CSS custom properties (on `:root` or `.mcp-elicit`): `--mcp-dialog-bg`,
 * `--mcp-dialog-fg`, `--mcp-dialog-muted`, `--mcp-dialog-border`, `--mcp-dialog-accent`,
 * `--mcp-dialog-accent-fg`, `--mcp-dialog-danger`, `--mcp-dialog-warning-bg`,
 * `--mcp-dialog-warning-fg`, `--mcp-dialog-highlight-bg` (the domain), `--mcp-dialog-focus`,
 * `--mcp-dialog-input-bg`, `--mcp-dialog-backdrop`, `--mcp-dialog-radius`, `--mcp-dialog-width`,
 * `--mcp-dialog-font`.
 *
 * @example
 * new McpClient(url, {
 *   elicitation: { form: true, url: true },
 *   onElicitation: (request, ctx) => showElicitationDialog(request, ctx),
 * });
 */
export function showElicitationDialog(
  request: ElicitRequestParams,
  ctx?: Partial<InputContext>,
  options?: ElicitationDialogOptions,
): Promise<ElicitResult>;
