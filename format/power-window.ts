import { POWER_WINDOW } from './bounds.js'

/**
 * The powers a `power_hp` of p keeps (0.9p <= power <= 1.1p, contract 4.1), as whole KM
 * inclusive, as the listings' are; exact in integers, as mileageWindow is.
 */
export function powerWindow(power: number): { readonly from: number; readonly to: number } {
  const tenths = Math.round(POWER_WINDOW * 10)
  return { from: Math.ceil(((10 - tenths) * power) / 10), to: Math.floor(((10 + tenths) * power) / 10) }
}
