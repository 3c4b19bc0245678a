import { resource } from './resource.js'

/** The service's mark, on a square of 64 units: a rounded square, a rising line and a dot at its end. */
export const MARK = {
  size: 64,
  radius: 14,
  ground: '#1d4ed8',
  ink: '#ffffff',
  line: [
    [12, 45],
    [24, 32],
    [33, 38],
    [50, 20],
  ],
  stroke: 5,
  dot: { x: 50, y: 20, r: 4.5 },
} as const

const path = `M${MARK.line.map(([x, y]) => `${x} ${y}`).join(' L')}`
const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${MARK.size} ${MARK.size}" width="512" height="512"
 role="img" aria-label="carmarket">
<rect width="${MARK.size}" height="${MARK.size}" rx="${MARK.radius}" fill="${MARK.ground}"/>
<path d="${path}" fill="none" stroke="${MARK.ink}" stroke-width="${MARK.stroke}"
 stroke-linecap="round" stroke-linejoin="round"/>
<circle cx="${MARK.dot.x}" cy="${MARK.dot.y}" r="${MARK.dot.r}" fill="${MARK.ink}"/>
</svg>
`

/** The service's mark: the pages' icon and the plugin manifest's logo, at a stable address. */
export const LOGO = resource('/logo.svg', svg, 'image/svg+xml')
