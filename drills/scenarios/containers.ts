// A scenario's own containers: `docker inspect` answers from the drill folder for the containers it
// names (the drill's docker stand-in in its SEAT_DRILL_DOCKER mode), and as the drill's docker
// stand-in has them for every other container.
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function overrideContainers(dir: string, binDir: string, containers: Record<string, Record<string, string>> | undefined): void {
  if (!containers || !existsSync(join(binDir, 'docker'))) return;
  for (const [host, byName] of Object.entries(containers)) {
    mkdirSync(join(dir, 'docker', host), { recursive: true });
    for (const [name, inspect] of Object.entries(byName)) writeFileSync(join(dir, 'docker', host, `${name}.inspect`), inspect);
  }
  renameSync(join(binDir, 'docker'), join(binDir, 'docker-drill'));
  writeFileSync(
    join(binDir, 'docker'),
    `#!/bin/bash
# Drill stand-in: this scenario's containers answer from ../docker/<host>/, every other one as drills/bin/docker has it.
here="\${BASH_SOURCE[0]%/*}"
case "$*" in
  "inspect --type container "*) name="$4" ;;
  "port "*) name="$2" ;;
  *) name= ;;
esac
if [[ -n "$name" && -f "$here/../docker/$SEAT_DRILL_HOST/$name.inspect" ]]; then
  SEAT_DRILL_DOCKER="$here/../docker" exec "$here/docker-drill" "$@"
fi
exec "$here/docker-drill" "$@"
`,
  );
  chmodSync(join(binDir, 'docker'), 0o755);
}
