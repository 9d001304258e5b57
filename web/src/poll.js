// Fetches a page's documents now and again every pollMs, so the page follows the ledger live.
import { useEffect, useState } from 'preact/hooks';
import { pollMs } from './api.js';

/** Calls `load` (async, returns the page's data) on mount and every pollMs after. */
export function usePoll(load, key) {
  const [state, setState] = useState({ data: null, error: null, tick: 0 });
  useEffect(() => {
    let alive = true;
    let timer = 0;
    const run = async () => {
      try {
        const data = await load();
        if (alive) setState((s) => ({ data, error: null, tick: s.tick + 1 }));
      } catch (error) {
        if (alive) setState((s) => ({ data: s.data, error, tick: s.tick + 1 }));
      }
      if (alive) timer = setTimeout(run, pollMs);
    };
    run();
    return () => { alive = false; clearTimeout(timer); };
  }, [key]);
  return state;
}
