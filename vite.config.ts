import { tanstackRouter } from '@tanstack/router-plugin/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// In development Vite serves the app with hot reload and hands the API and pictures to the server
// that `npm run dev` starts beside it.
const apiTarget = `http://localhost:${process.env.PORT ?? 3000}`

export default defineConfig({
  plugins: [
    tanstackRouter({ target: 'react', autoCodeSplitting: true, quoteStyle: 'single', semicolons: false }),
    react(),
  ],
  server: {
    proxy: { '/api': apiTarget, '/images': apiTarget },
  },
  build: {
    manifest: true,
    target: 'es2022',
  },
})
