// Where the authorization server sends the person back (the console's auth.redirectUri).
// In a popup: post this URL (code, state, iss, or error) to the console that opened it, on
// this origin only, and close. After a full-page redirect (the popup was blocked): keep the
// URL for the console (sessionStorage, this tab only) and go back to it.
const KEY = 'mcp-console:signin-return';
const url = location.href;
// The code leaves the address bar and the history at once.
history.replaceState(null, '', location.pathname);
if (window.opener && window.opener !== window) {
  window.opener.postMessage(url, location.origin);
  window.close();
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
