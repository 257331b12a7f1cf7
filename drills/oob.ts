// TCP listeners standing in for the drill fleet's BMC and firewall management ports (loopback only).
import { createServer, type Server, type Socket } from 'node:net';
import type { Fleet } from '../src/inventory/fleet.ts';
import { assertLoopback, closeServer, hostPort, listen } from './net.ts';

export interface OobListeners {
  listening: string[]; // address:port
  stop(): Promise<void>;
}

export async function startOobListeners(fleet: Fleet, skipSites: string[] = []): Promise<OobListeners> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const listening: string[] = [];
  const stop = async (): Promise<void> => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map(closeServer));
  };
  try {
    for (const [siteName, site] of Object.entries(fleet.inventory.sites)) {
      if (skipSites.includes(siteName)) continue;
      const devices = [...Object.values(site.bmc), ...(site.firewall ? [site.firewall] : [])];
      for (const d of devices) {
        assertLoopback(d.address, 'listen on');
        for (const port of d.tcpPorts) {
          const server = createServer((s) => {
            sockets.add(s);
            s.on('close', () => sockets.delete(s));
            s.end();
          });
          await listen(server, port, d.address);
          servers.push(server);
          listening.push(hostPort(d.address, port));
        }
      }
    }
  } catch (err) {
    await stop(); // a port in use must not leave the others listening
    throw err;
  }
  return { listening, stop };
}
