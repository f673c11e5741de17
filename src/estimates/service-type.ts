/**
 * Which product service type a charge is for: named (`serviceType`), or by its X12 code when one product
 * type alone has it (`98` is both nutrition types, so those charges name theirs).
 */
import { PRIMARY_CODE } from '../benefits/service-types.ts';
import type { ProductServiceType } from '../contract/check-response.ts';
import type { Charge } from '../contract/estimate.ts';

const PRODUCTS = Object.keys(PRIMARY_CODE) as ProductServiceType[];

/** The codes a charge may name, each with its product types. */
const BY_CODE = new Map<string, ProductServiceType[]>();
for (const product of PRODUCTS) {
  const code = PRIMARY_CODE[product];
  BY_CODE.set(code, [...(BY_CODE.get(code) ?? []), product]);
}

export const CHARGE_SERVICE_TYPE_CODES = [...BY_CODE.keys()];

export type SettledServiceType =
  | { ok: true; serviceType: ProductServiceType; serviceTypeCode: string }
  | { ok: false; problem: string };

export function settleServiceType(
  charge: Pick<Charge, 'serviceType' | 'serviceTypeCode'>,
): SettledServiceType {
  const { serviceType, serviceTypeCode } = charge;
  if (serviceType) {
    const code = PRIMARY_CODE[serviceType];
    if (serviceTypeCode && serviceTypeCode !== code)
      return {
        ok: false,
        problem: `serviceTypeCode ${serviceTypeCode} is not the code of ${serviceType} (${code})`,
      };
    return { ok: true, serviceType, serviceTypeCode: code };
  }
  if (!serviceTypeCode) return { ok: false, problem: 'needs serviceType or serviceTypeCode' };
  const products = BY_CODE.get(serviceTypeCode);
  if (!products)
    return {
      ok: false,
      problem: `serviceTypeCode ${serviceTypeCode} is not one of the product's service types (${CHARGE_SERVICE_TYPE_CODES.join(', ')})`,
    };
  if (products.length > 1)
    return {
      ok: false,
      problem: `serviceTypeCode ${serviceTypeCode} is shared by ${products.join(' and ')}: name the serviceType`,
    };
  return { ok: true, serviceType: products[0]!, serviceTypeCode };
}
