// Builds the dashboard into dist/, which `frugal serve` serves at /. Everything is bundled:
// the running server needs no network.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, chunkSizeWarningLimit: 1000 },
});
