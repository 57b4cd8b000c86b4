// Who is logged in, asked without a console error for guests.
//
// GET /api/account answers 401 to a guest, and browsers log every 4xx answer as a console
// error. So the name of the account that logged in from this browser is kept in localStorage
// (not a secret: the session itself is an HttpOnly cookie) and the server is asked only when
// that says somebody did; a session that ended meanwhile clears it.

import { api } from "/static/api.js";

const KEY = "catsack:account";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Remember (a name) or forget (null) the account logged in from this browser. */
export function rememberAccount(name) {
  if (name) storage()?.setItem(KEY, name);
  else storage()?.removeItem(KEY);
}

/** The logged-in account ({name, rating, games, wins}) or null for a guest. */
export async function currentAccount() {
  if (!storage()?.getItem(KEY)) return null;
  try {
    const me = await api("/api/account");
    rememberAccount(me.name);
    return me;
  } catch {
    rememberAccount(null);
    return null;
  }
}
