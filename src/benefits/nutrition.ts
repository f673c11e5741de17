/** Which nutrition product a 271 row names, in its MSG text or its EB13 procedure code. */
export type NutritionKind = 'Preventive Nutrition' | 'Medical Nutrition' | 'either';

const NUTRITION_TEXT = /NUTRITION|DIETITIAN|DIETICIAN|\bDIET\b|DIETARY|\bMNT\b/;
const MEDICAL_NUTRITION_TEXT = /MEDICAL NUTRITION|\bMNT\b|NUTRITION THERAPY|THERAPEUTIC/;
const PREVENTIVE_NUTRITION_TEXT = /PREVENT|COUNSEL|WELLNESS/;
/** Medical nutrition therapy procedure codes (CPT 97802–97804, HCPCS G0270/G0271), from general knowledge. */
const MNT_PROCEDURE_CODES = new Set(['97802', '97803', '97804', 'G0270', 'G0271']);

/**
 * False only when `message` certainly cannot make NUTRITION_TEXT match: it is ASCII (so upper-casing maps
 * letters one to one) and has none of the words every NUTRITION_TEXT alternative contains. The usual MSG
 * is then passed over without joining and upper-casing the row's text.
 */
const NUTRITION_WORD_OR_NON_ASCII = /DIET|NUTRITION|MNT|[\u0080-\uffff]/i;
function mayNameNutrition(message: string): boolean {
  return NUTRITION_WORD_OR_NON_ASCII.test(message);
}

/**
 * X12 has no service type code for nutrition, so payers (and the sandbox) name it in MSG text after a 98
 * row. Text that names nutrition but neither kind (or both) is `either`.
 */
export function classifyNutrition(
  messages: string[],
  procedureCode: string | undefined,
): { kind: NutritionKind; source: 'MSG text' | 'procedure code' } | undefined {
  const text = messages.some(mayNameNutrition) ? messages.join(' ').toUpperCase() : '';
  if (NUTRITION_TEXT.test(text)) {
    const medical = MEDICAL_NUTRITION_TEXT.test(text);
    const preventive = PREVENTIVE_NUTRITION_TEXT.test(text);
    const kind = medical === preventive ? 'either' : medical ? 'Medical Nutrition' : 'Preventive Nutrition';
    return { kind, source: 'MSG text' };
  }
  const procedure = procedureCode?.trim().toUpperCase();
  if (procedure && MNT_PROCEDURE_CODES.has(procedure))
    return { kind: 'Medical Nutrition', source: 'procedure code' };
  return undefined;
}
