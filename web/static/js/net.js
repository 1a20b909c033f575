// The connection to the game server: one WebSocket speaking the JSON encoding of the
// protocol (subprotocol "gomoku.json"), said hello to with the stored name and resume
// token, reconnected with backoff when it drops. Replies are matched to requests by
// `id` / `re`; everything else is handed to the listener as it arrives.
//
// A connection whose network silently stops carrying anything (no close, no reset)
// looks open to the page for as long as TCP takes to give up, minutes; a browser does
// not show the page the server's WebSocket pings. So after QUIET_MS with nothing
// heard the page sends `ping`, and if nothing at all comes back within STALL_MS it
// drops the connection and connects again (protocol.md, `ping`). A connection that is
// not answered its hello within CONNECT_MS (a train's network that took the attempt
// and then carried nothing) is given up and made again the same way: one sat at
// "Connecting…" for minutes, long after the network was back, while the game was lost.

const SUBPROTOCOL = "gomoku.json";
const BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 10000];
const QUIET_MS = 10000;
const STALL_MS = 5000;
const CONNECT_MS = 10000;
// When the browser says the network went away, the connection is asked at once and
// given this long: a phone's tap sent into a dead socket was kept there, unseen, for
// the 15 s the quiet checks take, and delivered late if the network came back.
const SUSPECT_MS = 2000;
const UNAVAILABLE_RETRY_MS = 2000; // a hello the server could not answer (its store was down)

/** The biggest frame the server reads (protocol/limits.py's MAX_CLIENT_FRAME): it
 * closes the connection on a bigger one (1009). */
const MAX_FRAME = 4096;
const TOO_LONG = { code: "too_long", message: "too long for the server: not sent" };

/** `message` as a frame, or null when it is bigger than the server takes: not sent, it
 * costs the page nothing (a crafted link's join closed the visitor's connection). */
function fitting(message) {
  const frame = JSON.stringify(message);
  // A UTF-16 unit is at most 3 bytes of UTF-8: only a long frame is measured.
  if (frame.length * 3 > MAX_FRAME && new TextEncoder().encode(frame).length > MAX_FRAME) return null;
  return frame;
}

export class RequestError extends Error {
  constructor(frame) {
    super(frame.message);
    this.code = frame.code;
    this.foul = frame.foul;
    this.room = frame.room;
  }
}

export class Connection {
  /**
   * @param {string} url the ws:// or wss:// address of this page's own server
   * @param {{name: () => string, token: () => string|null, onMessage: (m: object) => void,
   *          onState: (state: string, detail: object) => void,
   *          onWelcome: (w: object) => void}} hooks
   */
  constructor(url, hooks) {
    this.url = url;
    this.hooks = hooks;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // request id -> {resolve, reject}: requests with a reply
    this.actions = new Map(); // request id -> onError: actions answered by room events
    this.attempt = 0;
    this.retryTimer = null;
    this.identified = false;
    this.state = "offline";
    this.serverGone = false; // closed with 1001 and not welcomed since
    // Times here are performance.now(), which only goes forward: Date.now() follows the
    // computer's clock, and one set back (by hand, by a time sync) left a dead link
    // unnoticed ("Online" for a minute while the opponent could claim the game).
    this.lastHeard = 0; // when the current connection last brought a frame
    this.answerBy = null; // when a ping's answer is due, while one waits for it
    // The browser said it is offline: only the ping's own answer clears the doubt, since
    // frames already on their way when the network went arrive after the browser says so.
    this.suspected = false;
    this.quietMs = QUIET_MS; // (a test shortens them)
    this.stallMs = STALL_MS;
    this.suspectMs = SUSPECT_MS;
    this.connectMs = CONNECT_MS;
    setInterval(() => this.checkAlive(), 1000);
  }

  start() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.setState("connecting", {});
    const ws = new WebSocket(this.url, SUBPROTOCOL);
    this.ws = ws;
    this.lastHeard = performance.now();
    this.answerBy = null;
    this.suspected = false;
    ws.onopen = () => this.hello();
    ws.onmessage = (event) => this.receive(event.data);
    ws.onclose = (event) => this.closed(ws, event);
  }

  /** Close for good (a new name is said with a new connection: see restart). */
  stop() {
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.onclose = null;
      ws.close(1000);
    }
    this.failPending("the connection was closed");
    this.actions.clear(); // what became of them, a resume tells
    this.identified = false;
  }

  restart() {
    this.stop();
    this.attempt = 0;
    this.start();
  }

  /** Connect now rather than at the retry's time (the browser says it is online
   * again); an attempt still waiting for its answer is given up for a new one, made
   * on the network that is back. */
  retryNow() {
    if (this.ws && !this.identified) this.drop(this.ws);
    if (this.retryTimer === null || this.ws) return;
    this.attempt = 0;
    this.start();
  }

  /** Ping a connection that has been quiet, and drop one that stays silent after it;
   * drop an attempt whose hello has not been answered within `connectMs`. */
  checkAlive() {
    const ws = this.ws;
    if (!ws) return;
    const now = performance.now();
    if (!this.identified) {
      if (now - this.lastHeard >= this.connectMs) this.drop(ws);
      return;
    }
    if (this.answerBy !== null) {
      if (now >= this.answerBy) this.drop(ws);
    } else if (now - this.lastHeard >= this.quietMs) {
      this.ping(ws, now + this.stallMs);
    }
  }

  /** Give up a connection (or an attempt) that carries nothing, as a drop: the state,
   * the retry. */
  drop(ws) {
    this.closed(ws, { code: 1006 });
    ws.onopen = null;
    ws.onclose = null;
    ws.onmessage = null;
    ws.close();
  }

  /** Send a ping (unless one waits for its answer already), to be answered by `dueBy`. */
  ping(ws, dueBy) {
    if (this.answerBy === null) ws.send(JSON.stringify({ type: "ping" }));
    this.answerBy = Math.min(this.answerBy ?? Infinity, dueBy);
  }

  /** The browser says it is offline: ping now, and drop the connection as a stalled
   * one if the ping's answer does not come within `suspectMs` (a false alarm costs one
   * ping). */
  suspect() {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || !this.identified) return;
    this.suspected = true;
    this.ping(ws, performance.now() + this.suspectMs);
  }

  async hello() {
    const hello = { type: "hello", name: this.hooks.name(), version: 1 };
    const token = this.hooks.token();
    if (token) hello.token = token;
    let welcome;
    try {
      welcome = await this.request(hello, { beforeHello: true });
    } catch (error) {
      if (error.code === "unavailable" && this.ws) {
        // The server's store is down for a moment; the connection stays: ask again.
        const ws = this.ws;
        setTimeout(() => { if (this.ws === ws && !this.identified) this.hello(); }, UNAVAILABLE_RETRY_MS);
        return;
      }
      if (error.code === "bad_token") {
        // The server does not know us (a new server, or the token expired): start afresh.
        this.hooks.onState("forgotten", { message: error.message });
        try {
          welcome = await this.request({ type: "hello", name: this.hooks.name(), version: 1 },
            { beforeHello: true });
        } catch (again) {
          this.setState("refused", { message: again.message, code: again.code });
          return;
        }
      } else {
        this.setState("refused", { message: error.message, code: error.code });
        return;
      }
    }
    this.identified = true;
    this.serverGone = false;
    this.attempt = 0;
    this.setState("online", {});
    this.hooks.onWelcome(welcome);
  }

  /** Send a message and wait for its direct reply (or its error, as a RequestError). */
  request(message, { beforeHello = false } = {}) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || (!beforeHello && !this.identified)) {
      return Promise.reject(new RequestError({ code: "offline",
        message: "not connected to the server right now" }));
    }
    const id = this.nextId++;
    const frame = fitting({ ...message, id });
    if (frame === null) return Promise.reject(new RequestError(TOO_LONG));
    this.ws.send(frame);
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  /**
   * Send an action whose effect is a room event (a move, a chat line, an AI seat...):
   * there is no reply, the event is the answer. If the server refuses it, its error
   * (which carries the action's `id` as `re`) goes to `onError`. Returns the action's
   * id (null if it could not be sent).
   */
  act(message, onError) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.identified) {
      onError(new RequestError({ code: "offline", message: "not connected to the server right now" }));
      return null;
    }
    const id = this.nextId++;
    const frame = fitting({ ...message, id });
    if (frame === null) {
      onError(new RequestError(TOO_LONG));
      return null;
    }
    this.actions.set(id, onError);
    if (this.actions.size > 200) this.actions.delete(this.actions.keys().next().value);
    this.ws.send(frame);
    return id;
  }

  /** Whether an action is live: sent on this connection and not refused (yet). */
  live(id) {
    return this.actions.has(id);
  }

  receive(text) {
    this.lastHeard = performance.now();
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      frame = null;
    }
    if (!this.suspected || frame?.type === "pong") {
      this.answerBy = null;
      this.suspected = false;
    }
    if (frame === null || frame.type === "pong") return;
    const re = frame.re;
    if (frame.type === "error" && this.actions.has(re)) {
      const onError = this.actions.get(re);
      this.actions.delete(re);
      onError(new RequestError(frame));
      return;
    }
    if (re !== undefined && re !== null && this.pending.has(re)) {
      const waiter = this.pending.get(re);
      this.pending.delete(re);
      if (frame.type === "error") {
        waiter.reject(new RequestError(frame));
        return;
      }
      waiter.resolve(frame);
      // A reply is also news for the app (a snapshot is the room's state, a lobby the
      // list): it takes it in like any other frame.
    }
    this.hooks.onMessage(frame);
  }

  closed(ws, event) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.identified = false;
    // The server said it is going away (1001: shutting down, an operator's restart as a
    // rule); said until a server welcomes us again, through the attempts that find none.
    if (event.code === 1001) this.serverGone = true;
    this.failPending("the connection dropped");
    this.actions.clear();
    const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.retryDeadline = performance.now() + wait;
    this.setState("offline", { code: event.code, retryAt: this.retryDeadline });
    this.retryTimer = setTimeout(() => this.start(), wait);
  }

  failPending(why) {
    for (const waiter of this.pending.values()) {
      waiter.reject(new RequestError({ code: "offline", message: why }));
    }
    this.pending.clear();
  }

  setState(state, detail) {
    this.state = state;
    this.hooks.onState(state, detail);
  }
}

/** The WebSocket address of the server that served this page: its folder, so that a
 * proxy may publish the server under a path (https://example.org/arena/). */
export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${pageFolder(location)}`;
}

/** The folder of the page's address ("/" or "/arena/"), where its files and links are. */
export function pageFolder(location) {
  return location.pathname.replace(/[^/]*$/, "");
}
