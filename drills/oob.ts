// TCP listeners standing in for the drill fleet's BMC and firewall management ports (loopback only).
import { createServer, type Server, type Socket } from 'node:net';
import type { Fleet } from '../src/inventory/fleet.ts';

export interface OobListeners {
  listening: string[]; // address:port
  stop(): Promise<void>;
}

export async function startOobListeners(fleet: Fleet, skipSites: string[] = []): Promise<OobListeners> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const listening: string[] = [];
  for (const [siteName, site] of Object.entries(fleet.inventory.sites)) {
    if (skipSites.includes(siteName)) continue;
    const devices = [...Object.values(site.bmc), ...(site.firewall ? [site.firewall] : [])];
    for (const d of devices) {
      if (!d.address.startsWith('127.')) throw new Error(`drill: refusing to listen on ${d.address}: loopback only`);
      for (const port of d.tcpPorts) {
        const server = createServer((s) => {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.end();
        });
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, d.address, () => resolve());
        });
        servers.push(server);
        listening.push(`${d.address}:${port}`);
      }
    }
  }
  return {
    listening,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
