// The connection cap of `serve --http`. Node's own `server.maxConnections` refuses the newcomer,
// so a client holding the cap with silent sockets would lock every real call out until its
// sockets time out. Here a new connection instead closes the oldest *idle* one (no request in
// flight: just opened, or kept alive between requests); only when every held connection is
// serving a request is the newcomer refused, with a 503 and a typed JSON-RPC error.
// The server's request listener calls `track` first, so a refused socket never runs a request.
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../protocol/index.js';

export interface ConnectionGuardOptions {
  readonly maxConnections: number;
  /** A connection with no request in flight is closed after this long without a byte. */
  readonly connectionIdleMs: number;
}

export interface ConnectionGuard {
  /** Marks the connection busy until the response closes; false (socket destroyed) for a refused connection. */
  track(req: IncomingMessage, res: ServerResponse): boolean;
  dispose(): void;
}

function refusalOf(max: number): string {
  const code: ErrorCode = 'limit_exceeded';
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: `connection limit reached: ${max} connections are serving requests`, data: { code, limit: 'connections', max } },
  });
  return `HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

export function guardConnections(http: HttpServer, opts: ConnectionGuardOptions): ConnectionGuard {
  /** Requests in flight per held connection. */
  const held = new Map<Socket, number>();
  /** Held connections with no request in flight, oldest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();

  const forget = (socket: Socket): void => {
    held.delete(socket);
    idle.delete(socket);
  };

  const onConnection = (socket: Socket): void => {
    if (held.size >= opts.maxConnections) {
      const oldest = idle.values().next();
      if (oldest.done === true) {
        socket.end(refusalOf(opts.maxConnections), () => socket.destroy());
        return;
      }
      forget(oldest.value);
      oldest.value.destroy();
    }
    held.set(socket, 0);
    idle.add(socket);
    // Node's http server destroys a socket whose timeout fires when nobody else handles it.
    socket.setTimeout(opts.connectionIdleMs);
    socket.once('close', () => forget(socket));
  };

  const track = (req: IncomingMessage, res: ServerResponse): boolean => {
    const socket = req.socket;
    const inFlight = held.get(socket);
    if (inFlight === undefined) {
      // Refused or evicted before its request was parsed: it must not run anything.
      socket.destroy();
      return false;
    }
    held.set(socket, inFlight + 1);
    idle.delete(socket);
    // A request in flight may be silent as long as its call runs (the runtime's deadline bounds
    // it); after the response Node arms its keep-alive timeout on the socket.
    socket.setTimeout(0);
    res.once('close', () => {
      const n = held.get(socket);
      if (n === undefined) return;
      held.set(socket, n - 1);
      if (n - 1 === 0) idle.add(socket);
    });
    return true;
  };

  http.on('connection', onConnection);
  return { track, dispose: () => http.off('connection', onConnection) };
}
