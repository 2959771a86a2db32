// Where the authorization server sends the person back (the console's auth.redirectUri).
// In a popup: post this URL (code, state, iss, or error) to the console that opened it, on
// this origin only; the console closes the popup. After a full-page redirect (the popup was blocked): keep the
// URL for the console (sessionStorage, this tab only) and go back to it.
const KEY = 'mcp-console:signin-return';
const url = location.href;
// The code leaves the address bar and the history at once.
history.replaceState(null, '', location.pathname);
if (window.opener && window.opener !== window) {
  window.opener.postMessage(url, location.origin);
  // The console closes this window when the message reaches it. Closing it here at once
  // raced the message: the console watches `popup.closed`, and in one engine process the
  // window reads as closed before the posted message is handled, so the console saw
  // "closed before it finished" for a sign-in that had finished. The fallback closes the
  // window if the console is gone or never answers.
  document.getElementById('msg').textContent = 'Signed in. This window closes by itself.';
  setTimeout(() => window.close(), 5_000);
} else {
  let back = null;
  try {
    back = JSON.parse(sessionStorage.getItem(KEY) || 'null');
  } catch {
    // ignore
  }
  if (back && typeof back.serverUrl === 'string') {
    sessionStorage.setItem(KEY, JSON.stringify({ serverUrl: back.serverUrl, callbackUrl: url }));
    location.replace('/');
  } else {
    document.getElementById('msg').textContent = 'This page finishes a sign-in started by the console; there is none to finish here.';
  }
}
