/**
 * The number formats a workbook's cells are shown in. Excel's own date format (number format 14)
 * shows a date by the reader's locale, `mm-dd-yy` where none is set (LibreOffice, XlsxWriter's
 * default): 2010-01-01 read as 01-01-10. An ISO date reads the same everywhere.
 */
export const ISO_DATE_FORMAT = 'yyyy-mm-dd';

/** Dollars with thousands separators: whole (`1,250,000`) or with cents (`2.25`). */
export const DOLLARS = { whole: '#,##0', cents: '#,##0.00' } as const;

/** The part of exceljs's style manager a workbook writer calls for every cell. */
interface StyleManager {
  addStyleModel(model: { numFmt?: string } | undefined, cellType?: number): number;
}

/** exceljs's ValueType.Date. */
const DATE_CELL = 4;

/**
 * Makes a streaming workbook's styles number formats alone, each looked up once. exceljs works
 * out every cell's style afresh from a new object (its cache is by object), which made a
 * 100,000-row workbook take 11 s instead of 3; our cells have no style but a number format, so
 * a style is one per format. Every date gets the ISO format, whichever column it is in.
 */
export function numberFormatsOnly(workbook: object): void {
  const styles = (workbook as { styles?: StyleManager }).styles;
  if (!styles) return;
  const styleOf = styles.addStyleModel.bind(styles);
  const byFormat = new Map<string, number>();
  styles.addStyleModel = (model, cellType) => {
    const format = model?.numFmt ?? (cellType === DATE_CELL ? ISO_DATE_FORMAT : undefined);
    if (format === undefined) return 0;
    let id = byFormat.get(format);
    if (id === undefined) {
      id = styleOf({ numFmt: format }, cellType);
      byFormat.set(format, id);
    }
    return id;
  };
}
