// The repair note, declared once, field by field: each field's C++ type, its member, the Fixit
// record's field it is made of (store/fixit_record.h) and how, and which column of the notes'
// full-text index (store/text_index.h: primary words weigh more than secondary ones) holds its words.
// Made from this list: the struct RepairNote, a note made of a record, and the index's two texts
// (fixit_core/repair_notes.cpp). A new field of the note is one FIELD line here.
#pragma once
#include <string>
#include <vector>

// FIELD(C++ type, member, record member, make, index, note)
//   make:  the function of the record member that gives the field (expanded where the note is
//          made: note_text, the record's text as it is; kernel_features, fixit_core/kernel_features.h)
//   index: primary (the error signature's words), secondary (the failing kernel's features), none.
//          A column's text is its fields' words in this order.
#define PTXBENCH_REPAIR_NOTE_FIELDS(FIELD)                                                            \
  FIELD(std::string, id, id, note_text, none, "the Fixit record's id (BUILD/KEY)")                    \
  FIELD(std::string, problem, problem, note_text, primary, "")                                        \
  FIELD(std::string, error_class, error_class, note_text, none, "")                                   \
  FIELD(std::string, signature, error_signature, note_text, primary, "")                              \
  FIELD(std::string, explanation, explanation, note_text, none, "the note's value")                   \
  FIELD(std::string, fixed_kernel, kernel, note_text, none, "shown when asked (--with-fixed-kernel)") \
  FIELD(std::vector<std::string>, features, failing_kernel, kernel_features, secondary, "of the failing kernel")

namespace ptxbench {

struct RepairNote {
#define PTXBENCH_REPAIR_NOTE_MEMBER(type, member, from, make, index, note) type member;
  PTXBENCH_REPAIR_NOTE_FIELDS(PTXBENCH_REPAIR_NOTE_MEMBER)
#undef PTXBENCH_REPAIR_NOTE_MEMBER
};

}  // namespace ptxbench
