// A loopback TCP proxy that holds what the server sends back for `delayMs` (settable while running):
// an instance whose Postgres connection lags, so that what it hears (NOTIFY) arrives late. What the
// client sends goes through at once, unless `holdFromClient` picks it: then it and everything after it
// on that connection never reach the server (a process stopped at that moment). Bytes keep their order.
import type { Socket } from "bun";

interface Pipe {
  peer: Socket<Pipe> | null;
  /** Bytes written to this socket when the peer connects or drains. */
  outbox: Uint8Array[];
  /** Bytes from the client that arrived before the upstream connection opened. */
  early: Uint8Array[];
  holding: boolean;
}

export interface SlowProxy {
  port: number;
  /** How long bytes from the server are held before they reach the client. */
  delayMs: number;
  /** Picks the chunk from the client at which its connection stops sending. */
  holdFromClient: ((chunk: Uint8Array) => boolean) | null;
  /** Chunks held so far. */
  held: number;
  stop(): void;
}

export function startSlowProxy(targetPort: number): SlowProxy {
  const flush = (socket: Socket<Pipe>) => {
    while (socket.data.outbox.length > 0) {
      const chunk = socket.data.outbox[0];
      const n = socket.write(chunk);
      if (n < chunk.length) {
        socket.data.outbox[0] = chunk.subarray(n);
        return; // the rest on drain
      }
      socket.data.outbox.shift();
    }
  };
  const send = (socket: Socket<Pipe>, data: Uint8Array) => {
    socket.data.outbox.push(new Uint8Array(data));
    if (socket.data.outbox.length === 1) flush(socket);
  };
  const proxy: SlowProxy = { port: 0, delayMs: 0, holdFromClient: null, held: 0, stop: () => server.stop(true) };
  const server = Bun.listen<Pipe>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = { peer: null, outbox: [], early: [], holding: false };
        // Held chunks leave in arrival order: each waits for its own release time after the previous one.
        let released = Promise.resolve();
        void Bun.connect<Pipe>({
          hostname: "127.0.0.1",
          port: targetPort,
          data: { peer: client, outbox: [], early: [], holding: false },
          socket: {
            open(upstream) {
              client.data.peer = upstream;
              const queued = client.data.early.splice(0);
              for (const chunk of queued) send(upstream, chunk);
            },
            data(_upstream, chunk) {
              const copy = new Uint8Array(chunk);
              const at = performance.now() + proxy.delayMs;
              released = released.then(async () => {
                const wait = at - performance.now();
                if (wait > 0) await Bun.sleep(wait);
                send(client, copy);
              });
            },
            drain: flush,
            close: () => void released.then(() => client.end()),
            error: () => void client.end(),
          },
        }).catch(() => client.end());
      },
      data(client, chunk) {
        if (client.data.holding || proxy.holdFromClient?.(chunk)) {
          client.data.holding = true;
          proxy.held++;
          return;
        }
        if (client.data.peer) send(client.data.peer, chunk);
        else client.data.early.push(new Uint8Array(chunk));
      },
      drain: flush,
      close: (client) => void client.data.peer?.end(),
      error: (client) => void client.data.peer?.end(),
    },
  });
  proxy.port = server.port;
  return proxy;
}
