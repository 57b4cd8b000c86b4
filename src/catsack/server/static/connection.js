// One WebSocket to the table (catsack-ws/1) that reconnects by itself.
//
// After a dropped connection it waits with capped exponential backoff (plus
// jitter, so a restarted server is not hit by every tab at once), then sends
// `hello` with the last version seen so the server sends what was missed.

export const PROTOCOL = "catsack-ws/1";

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_MS = 25000;

export class TableConnection {
  /**
   * @param {object} options
   * @param {string} options.table     table id
   * @param {() => string|null} options.token   seat token (null: spectate)
   * @param {() => number|null} options.since   last version shown
   * @param {(frame: object) => void} options.onFrame
   * @param {(state: string, detail?: string) => void} options.onStatus
   *   "connecting" | "open" | "waiting" (retry scheduled) | "stopped"
   */
  constructor({ table, token, since, onFrame, onStatus }) {
    this.table = table;
    this.token = token;
    this.since = since;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.socket = null;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.stopped = false;
    this.opening = false;
    this.proof = "";
    this.proofOf = null;
  }

  get isOpen() {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  start() {
    this.stopped = false;
    this.open();
    // A phone waking up or a tab coming back should not wait out the backoff.
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
    });
  }

  /** Stop for good (e.g. the seat was replaced): no more reconnects. */
  stop(detail) {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000, "bye");
    this.socket = null;
    this.onStatus("stopped", detail);
  }

  retryNow() {
    if (this.stopped || this.socket) return;
    clearTimeout(this.retryTimer);
    this.open();
  }

  send(frame) {
    if (!this.isOpen) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  /**
   * The SHA-256 of the seat token (hex), which the server keeps for the seat: sent in the URL, it lets a
   * reconnect skip the cap on sockets waiting for their hello (it proves nothing else: the hello's token
   * does). Empty without a token, or where the page has no Web Crypto (plain HTTP on another host).
   */
  async seatProof() {
    const token = this.token();
    if (!token || !globalThis.crypto?.subtle) return "";
    if (this.proofOf !== token) {
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
      this.proof = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
      this.proofOf = token;
    }
    return this.proof;
  }

  async open() {
    this.retryTimer = null;
    if (this.opening) return;
    this.opening = true;
    let proof = "";
    try {
      proof = await this.seatProof();
    } catch {
      proof = ""; // no proof: the socket counts as a newcomer's
    } finally {
      this.opening = false;
    }
    if (this.stopped || this.socket) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    // The table is in the URL: a proxy sends every connection of a table to the same server process.
    const query = proof ? `?seat=${proof}` : "";
    const socket = new WebSocket(`${scheme}//${window.location.host}/ws/${encodeURIComponent(this.table)}${query}`);
    this.socket = socket;
    this.onStatus("connecting");
    socket.addEventListener("open", () => {
      socket.send(
        JSON.stringify({
          type: "hello",
          protocol: PROTOCOL,
          table: this.table,
          token: this.token(),
          since: this.since(),
        }),
      );
    });
    socket.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; ignore anything else
      }
      if (frame?.type === "welcome") {
        this.attempt = 0;
        this.onStatus("open");
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_MS);
      }
      this.onFrame(frame);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      clearInterval(this.pingTimer);
      if (this.stopped) return;
      this.scheduleRetry(event.code);
    });
    // "error" is always followed by "close", which does the work.
  }

  scheduleRetry(code) {
    const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    // Too many connections (1013) or flooding (1008): back off harder.
    const factor = code === 1013 || code === 1008 ? 4 : 1;
    const delay = Math.min(MAX_DELAY_MS, base * factor) * (0.8 + Math.random() * 0.4);
    this.attempt += 1;
    this.onStatus("waiting", `${Math.round(delay / 1000)} s`);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}
