// Hostile and careless inputs: repeated fields, messages that say where, and
// user strings in every output format escaped so they cannot forge lines.
#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "io/jsonl.h"

using namespace isocheck;

namespace {

std::string input_error(const std::string& text) {
  try {
    parse_jsonl(text, "h.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(JsonlRepeatedField, RefusedNamingLineAndField) {
  // The second "ops" would discard the thin-air read of the first.
  std::string m = input_error(
      "{\"isocheck\":1}\n"
      "{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"r\",\"x\",2]],\"ops\":[]}\n");
  EXPECT_NE(m.find("h.jsonl:2"), std::string::npos) << m;
  EXPECT_NE(m.find("field \"ops\" is given more than once"), std::string::npos) << m;
  for (const char* f : {"id", "session", "status", "begin", "end"}) {
    std::string line = "{\"id\":1,\"session\":1,\"status\":\"committed\",\"begin\":1,\"end\":2,\"ops\":[]}";
    std::string field = std::string("\"") + f + "\":";
    size_t at = line.find(field);
    size_t stop = line.find(',', at);
    line.insert(line.size() - 1, "," + line.substr(at, stop - at));
    m = input_error(line + "\n");
    EXPECT_NE(m.find("h.jsonl:1"), std::string::npos) << line << " -> " << m;
    EXPECT_NE(m.find("field \"" + std::string(f) + "\" is given more than once"), std::string::npos) << line << " -> " << m;
  }
  m = input_error("{\"isocheck\":1,\"time_unit\":\"ns\",\"time_unit\":\"ms\"}\n");
  EXPECT_NE(m.find("h.jsonl:1"), std::string::npos) << m;
  EXPECT_NE(m.find("field \"time_unit\" is given more than once"), std::string::npos) << m;
}

TEST(JsonlMessages, BadValuesNameTheOperationAndTheirRole) {
  std::string m = input_error("{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"w\",\"x\",1],[\"r\",\"x\",[1,true]]]}\n");
  EXPECT_NE(m.find("operation 1: an element of a list read must be an integer or a string"), std::string::npos) << m;
  m = input_error("{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",1.5]]}\n");
  EXPECT_NE(m.find("operation 0: a read value must be an integer or a string"), std::string::npos) << m;
  m = input_error("{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",\"x\",{}]]}\n");
  EXPECT_NE(m.find("operation 1: a written value must be an integer or a string"), std::string::npos) << m;
  m = input_error("{\"id\":1,\"session\":1,\"status\":\"committed\",\"ops\":[[\"r\",\"x\",null],[\"w\",[],1]]}\n");
  EXPECT_NE(m.find("operation 1: a key must be a string or an integer"), std::string::npos) << m;
}
