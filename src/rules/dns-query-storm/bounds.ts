// What dns-query-storm lets go to stay bounded, and in which order: names that cannot make a storm
// before names that can, and clients that asked once before clients already looping (issue 44).

import { stateCap } from '../../core/state-cap.js';
import { controlPlaneService } from '../../knowledge/control-plane-dns.js';

/** Names kept by a sweep: keepWorst holds twice that between sweeps, so never more than maxNames. */
export function namesKept(maxNames: number): number {
  return Math.max(1, Math.floor(maxNames / 2));
}

/**
 * How much a name weighs against the verdict, for keepWorst: a storm needs fast repeats (a client
 * asking again sooner than a healthy TTL), so a name with none ranks 0 and is only counted; more
 * repeats rank higher, a control-plane name above any other. Of names read without timestamps
 * (where no repeat can be timed), the most-asked is the one a finding names: they rank by count,
 * below any timed repeat.
 */
export function rankName(services: ReadonlySet<string>, s: { name: string; queries: number; timedQueries: number; fastRepeats: number }): number {
  if (s.fastRepeats > 0) return (controlPlaneService(s.name, services) ? 2e9 : 1e9) + Math.min(s.fastRepeats, 1e9 - 1);
  return s.timedQueries === 0 ? Math.min(s.queries, 1e9 - 1) / 1e9 : 0;
}

/** Clients (per name) remembered per input, in each of the two maps of ClientMemory. */
export const MAX_LAST_SEEN = stateCap(50_000);

export interface ClientMemory {
  /** When each client last asked for each name, in order of that query; at most MAX_LAST_SEEN. */
  lastSeen: Map<string, number>;
  /** The same for clients that asked again sooner than a healthy TTL at least once. */
  repeaters: Map<string, number>;
  /** Clients let go within a healthy TTL of their last query: their next query may have been a repeat. */
  forgotten: number;
}

export function clientMemory(): ClientMemory {
  return { lastSeen: new Map(), repeaters: new Map(), forgotten: 0 };
}

/**
 * Makes room in one of the maps: the clients that asked longest ago go first (a map is kept in
 * order of each client's last query) until half is free. Only those that asked within `window` ms
 * of `now` could still have made a fast repeat; they are counted.
 */
function forget(memory: ClientMemory, clients: Map<string, number>, now: number, window: number): void {
  for (const [key, time] of clients) {
    if (clients.size <= MAX_LAST_SEEN / 2) break;
    clients.delete(key);
    if (now - time < window) memory.forgotten++;
  }
}

/**
 * Records a client's query at `time` and says whether it is a fast repeat (sooner than `window` ms
 * after its last one). A client that has repeated fast once moves to the repeaters: a flood of
 * clients asking once each can fill lastSeen and push out its oldest entries, never a client
 * already looping (issue 44: the map used to be cleared when full, and a storm with it).
 */
export function seen(memory: ClientMemory, clientKey: string, time: number, window: number): boolean {
  const { lastSeen, repeaters } = memory;
  const looping = repeaters.get(clientKey);
  const previous = looping ?? lastSeen.get(clientKey);
  const repeat = previous !== undefined && time >= previous && time - previous < window;
  // Delete and set again, so each map stays in order of its clients' last query.
  if (looping !== undefined) repeaters.delete(clientKey);
  else if (previous !== undefined) lastSeen.delete(clientKey);
  if (looping !== undefined || repeat) {
    if (looping === undefined && repeaters.size >= MAX_LAST_SEEN) forget(memory, repeaters, time, window);
    repeaters.set(clientKey, time);
  } else {
    if (previous === undefined && lastSeen.size >= MAX_LAST_SEEN) forget(memory, lastSeen, time, window);
    lastSeen.set(clientKey, time);
  }
  return repeat;
}
