#pragma once
// The step's views: timeline, breakdown, weak scaling and compare as dock widgets, the
// playback bar as a toolbar, a Playback menu, and the topology's activity colouring. They
// follow the document: charts are rebuilt when the model changes, never per frame.

class Document;
class QMainWindow;

void addStepViews(QMainWindow* window, Document* document);
