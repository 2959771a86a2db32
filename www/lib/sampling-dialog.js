// The sampling approval dialog: the server asks the client's model for a message; in
// this console a person is the model. They see the request (system prompt, messages)
// and write or edit the reply before it is sent; Decline (or Escape) refuses.

import { h, trapFocus, uid } from './dom.js';

export class SamplingDeclinedError extends Error {
  constructor() {
    super('The person declined the model request.');
    this.name = 'SamplingDeclinedError';
  }
}

const textOf = (content) => (Array.isArray(content) ? content : [content])
  .map((c) => (c && c.type === 'text' ? String(c.text ?? '') : `[${c && c.type ? c.type : 'content'}]`))
  .join('\n');

/** Resolves with a CreateMessageResult, or rejects with SamplingDeclinedError. */
export function showSamplingDialog(request, ctx, serverName) {
  return new Promise((resolve, reject) => {
    const id = uid('sampling');
    const before = document.activeElement;
    const messages = Array.isArray(request.messages) ? request.messages : [];
    const reply = h('textarea', { id: `${id}-reply`, rows: 4, 'aria-describedby': `${id}-err`, placeholder: 'Write the reply the model would give…' });
    const model = h('input', { id: `${id}-model`, type: 'text', autocomplete: 'off' });
    model.value = 'human (agent console)';
    const err = h('p', { id: `${id}-err`, class: 'field-error', hidden: true });
    const decline = h('button', { type: 'button', text: 'Decline' });
    const send = h('button', { type: 'submit', class: 'primary', text: 'Send reply' });
    const form = h('form', { class: 'sampling-form', novalidate: true },
      h('h2', { id: `${id}-title`, text: 'The server asks the model' }),
      h('p', { class: 'muted' }, h('strong', { text: serverName }), ' wants a reply from the model. Here you are the model: write or edit the reply, then send it.'),
      request.systemPrompt ? h('p', { class: 'system' }, h('span', { class: 'muted', text: 'System prompt: ' }), String(request.systemPrompt)) : null,
      h('ol', { class: 'messages', 'aria-label': 'Messages' }, messages.map((m) => h('li', {},
        h('span', { class: 'role', text: `${m && m.role === 'assistant' ? 'assistant' : 'user'}: ` }), textOf(m && m.content)))),
      h('p', { class: 'muted', text: `At most ${Number(request.maxTokens) || '?'} tokens.` }),
      h('label', { for: reply.id, class: 'field-label', text: 'Reply' }), reply, err,
      h('label', { for: model.id, class: 'field-label', text: 'Model name' }), model,
      h('div', { class: 'actions' }, decline, send));
    const dialog = h('dialog', { class: 'sampling', 'aria-labelledby': `${id}-title` }, form);

    let settled = false;
    const close = (answer) => {
      if (settled) return;
      settled = true;
      if (ctx && ctx.signal) ctx.signal.removeEventListener('abort', onAbort);
      if (dialog.open) dialog.close();
      dialog.remove();
      if (before && before.isConnected) before.focus();
      if (answer) resolve(answer);
      else reject(new SamplingDeclinedError());
    };
    const onAbort = () => close(null);
    if (ctx && ctx.signal) ctx.signal.addEventListener('abort', onAbort, { once: true });

    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (reply.value.trim() === '') {
        err.textContent = 'Write a reply, or decline.';
        err.hidden = false;
        reply.setAttribute('aria-invalid', 'true');
        reply.focus();
        return;
      }
      close({ role: 'assistant', content: { type: 'text', text: reply.value }, model: model.value.trim() || 'human', stopReason: 'endTurn' });
    });
    decline.addEventListener('click', () => close(null));
    dialog.addEventListener('cancel', (e) => { e.preventDefault(); close(null); });
    dialog.addEventListener('close', () => close(null));
    trapFocus(dialog);
    document.body.append(dialog);
    dialog.showModal();
    reply.focus();
  });
}
