// autograd/tape_dump: naming each input of each node by where its value came from. Values are
// known by their storage (first element and shape), as the tape itself knows gradient buffers
// (Tape::take_pending). No equation: this is for reading. Read autograd/tape_dump.hpp first.
#include "autograd/tape_dump.hpp"

#include <string>

namespace empl {
namespace {

bool same_value(const Tensor& a, const Tensor& b) {
  return a.defined() && b.defined() && a.data() == b.data() && a.shape() == b.shape();
}

// Where `input` came from: the latest earlier node whose output it is, a named parameter, or a
// leaf/constant. The latest, because an arena buffer is handed out once per step: two nodes never
// share an output within one recording, but a view (a reshape) shares its input's storage.
std::string origin(const std::vector<Node>& nodes, size_t before, const Var& input,
                   const std::vector<NamedTensor>& parameters) {
  for (size_t k = before; k-- > 0;)
    if (same_value(nodes[k].output.value, input.value)) return "#" + std::to_string(k);
  for (const NamedTensor& parameter : parameters)
    if (same_value(parameter.tensor, input.value)) return parameter.name + " " + input.shape().str();
  return (input.requires_grad() ? "leaf " : "const ") + input.shape().str();
}

}  // namespace

std::string dump_tape(const Tape& tape, const std::vector<NamedTensor>& parameters) {
  const std::vector<Node>& nodes = tape.nodes();
  std::string text;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    text += "#" + std::to_string(i) + " " + node.name + " " + node.output.shape().str() + " <-";
    const char* separator = " ";
    for (const Var& input : node.inputs) {
      if (!input.value.defined()) continue;  // an unused input slot
      text += separator + origin(nodes, i, input, parameters);
      separator = ", ";
    }
    text += "\n";
  }
  return text;
}

}  // namespace empl
