#pragma once
// A table cell that shows text and sorts by a number, so that "9.8 %" comes before "10.2 %".

class QString;
class QTableWidgetItem;

// A new cell showing `text`, right-aligned, that sorts by `value`; the table takes ownership.
QTableWidgetItem* sortableNumber(double value, const QString& text);
