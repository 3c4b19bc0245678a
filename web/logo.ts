import { resource } from './resource.js'

const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="512" height="512" role="img" aria-label="carmarket">
<rect width="64" height="64" rx="14" fill="#1d4ed8"/>
<path d="M12 45 L24 32 L33 38 L50 20" fill="none" stroke="#fff" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/>
<circle cx="50" cy="20" r="4.5" fill="#fff"/>
</svg>
`

/** The service's mark: the pages' icon and the plugin manifest's logo, at a stable address. */
export const LOGO = resource('/logo.svg', svg, 'image/svg+xml')
