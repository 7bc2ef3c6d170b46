// One table of any game in C++: the rules as data, the game state, and the rule components of
// rummy_env/rules/ with the Python engine's legal actions and effects, step for step. This
// file and table.cpp: dealing, drawing, the discard, Three-Thirteen's going out, rounds and
// scoring; contract_turn.cpp: a contract game's melds, lay-offs and swaps; turn_search.cpp: the
// look-ahead that keeps each offered move finishable; contract_draw.cpp: deep draws and buying;
// observe.cpp: the Observer's parts (rummy_env/observation.py).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contract_solver.hpp"
#include "py_random.hpp"

namespace rummy {

struct RoundRules {
    int hand_size;
    int wild_rank;  // -1: no wild rank this round
    int sets = 0, runs = 0;  // the contract (contract games)
    bool down_means_out = false, out_by_melding = false;
};

// rules/spec.py's ContractPlay; absent (enabled false) in a game without contract play.
struct ContractPlay {
    bool enabled = false;
    bool melds_after_down = false, swap_needs_earlier_down = false;
    int max_deep_draw = 1, max_table_melds = 0, wild_penalty = 0;
    bool contract_runs_apart = true;
    int max_set_action_wilds = 2;
    bool buying = false;
    int max_buys_per_round = -1;  // -1: unlimited
};

// One action of the layout (rummy_env/actions.py's ActionLayout): its kind and argument.
enum ActionKind {
    kDrawStockKind = 0, kDrawDiscardKind = 1, kDeepDrawKind = 2, kDiscardKind = 3, kGoOutKind = 4,
    kMeldSetKind = 5, kMeldRunKind = 6, kLayOffKind = 7, kSwapKind = 8, kBuyKind = 9, kPassKind = 10
};

struct Action {
    int kind = 0;
    int a = -1, b = -1, c = -1;  // depth; face; set: rank, wilds; run: suit, low, high; lay off / swap: face, slot
    std::vector<int> naturals;   // a set's natural faces
};

// The part of GameRules (rummy_env/rules/spec.py) the core reads, and the action layout.
struct TableRules {
    int num_players;
    int num_suits, num_ranks;
    bool has_wild_card;
    std::vector<int> cards;           // DeckSpec.cards(): every physical card, unshuffled
    MeldRules melds;
    std::vector<int> rank_penalties;  // per rank
    std::vector<RoundRules> rounds;
    int max_turns_per_round;
    ContractPlay play{};
    // null in a game without contract play (draws, discards, go outs); shared, since every table
    // of a batch copies its rules
    std::shared_ptr<const std::vector<Action>> layout;
};

enum Phase { kDraw = 0, kPlay = 1, kGoingDown = 2, kBuy = 3, kGameOver = 4 };

struct TableMeld {
    int owner;
    PlacedMeld meld;
    std::vector<int> cards;
};

struct State {
    int round = 0, dealer = 0, current = 0, phase = kDraw;
    std::vector<std::vector<int>> hands, known;  // per seat, the count of each face
    std::vector<int> hand_sizes, stock, discard, discard_seats, discard_counts;
    std::vector<TableMeld> table;
    std::vector<int> scores;
    std::vector<std::vector<int>> round_penalties;
    int taken_face = -1, went_out = -1, last_turns_left = 0, turns = 0;
    // contract games (GameState's fields of the same names)
    std::vector<int> down_turn, buys;
    int sets_left = 0, runs_left = 0, must_place = -1, wilds_owed = 0, wilds_to_meld = 0, asked = -1;
    PyRandom rng;
};

// A short list of faces or positions on the stack (a meld's lay-off faces, a run's wild
// places): the turn search asks for them at every node, where vectors cost more than the work.
struct SmallList {
    std::array<int, 32> items{};
    int size = 0;
    void push_back(int x) { items[std::size_t(size++)] = x; }
    const int* begin() const { return items.data(); }
    const int* end() const { return items.data() + size; }
    bool contains(int x) const { return std::find(begin(), end(), x) != end(); }
};

// How many times x occurs in v (a meld's or a set action's naturals).
inline int count_of(const std::vector<int>& v, int x) { return int(std::count(v.begin(), v.end(), x)); }

struct RoundEnd {
    std::vector<int> penalties;
    bool game_over;
};

class Table {
public:
    explicit Table(const TableRules& rules);

    // A new game from a seed (the words of rummy_env.backend.seed_words), as Dealing.new_game.
    void reset(const std::vector<uint32_t>& seed_words);
    // Continues from `state` (a copy of the Python engine's GameState): std::invalid_argument
    // naming the first field that does not fit the rules, the table unchanged.
    void set_state(const State& state);
    // The legal action ids of the seat to act, ascending (ActionLayout's ids); computed once
    // per state.
    const std::vector<int>& legal_actions();
    bool legal_actions_known() const { return legal_known_; }
    // The seat to act: the player whose turn it is, or the one asked to buy.
    int to_act() const { return state_.phase == kBuy ? state_.asked : state_.current; }
    bool game_over() const { return state_.phase == kGameOver; }
    // Applies a legal action (std::invalid_argument naming it otherwise, the state unchanged);
    // the round's end, if it ended.
    std::optional<RoundEnd> apply(int action);

    const State& state() const { return state_; }
    int num_actions() const { return contract_ ? int(layout_->actions.size()) : 2 + 2 * num_faces_; }
    // The observation of `seat` (rummy_env/observation.py's Observer.encode, part for part).
    int observation_size() const;
    void observe(int seat, float* out) const;

private:
    // ---- table.cpp: dealing, drawing, discarding, rounds
    static long rules_id(const TableRules& rules);
    void deal();
    void reshuffle(State& s) const;
    void start_turn(State& s) const;
    std::optional<RoundEnd> draw_stock();
    void take_from_discard(State& s, int depth) const;
    void put_on_discard(State& s, int face) const;
    std::optional<RoundEnd> go_out(int face);
    std::optional<RoundEnd> end_turn(bool going_out);
    RoundEnd end_round();
    int hand_penalty(int seat);
    SmallList wild_faces() const;
    std::pair<std::vector<int>, int> split_wilds(const std::vector<int>& hand) const;
    void show_hand_legal(std::vector<int>& actions);  // appends them
    std::vector<int> discardable(const State& s) const;

    // ---- contract_draw.cpp: deep draws (rules/deep_draw.py), buying (rules/buy.py)
    std::vector<int> deep_draw_legal();
    std::optional<RoundEnd> ask_buyer(int after);
    int next_buyer(int after) const;
    std::optional<RoundEnd> buy();

    // ---- contract_turn.cpp: rules/contract_turn.py, turn_moves.py, melding.py, lay_off.py and
    // swap.py; turn_search.cpp: rules/turn_search.py; each function as its Python namesake
    bool is_down(const State& s, int seat) const { return s.down_turn[seat] >= 0; }
    const RoundRules& round_rules(const State& s) const { return rules_.rounds[s.round]; }
    std::vector<int> contract_turn_legal();
    std::optional<RoundEnd> contract_discard(int face);
    std::optional<RoundEnd> contract_move(int action);
    std::vector<int> play_moves(const State& s) const;
    void play_move(State& s, int action) const;
    void to_table(State& s, int face, bool placing) const;
    std::vector<int> meld_moves(const State& s, const std::vector<int>& hand, bool sets, bool runs) const;
    PlacedMeld run_from_hand(const std::vector<int>& hand, const Action& act) const;
    void count_contract_meld(State& s, bool is_set) const;
    SmallList fitting_faces(const PlacedMeld& meld) const;
    int lay_off_end(const PlacedMeld& meld, int face) const;  // LayOffFit.end: 0 none, 1 set, 2 high, 3 low
    PlacedMeld lay_off_place(const PlacedMeld& meld, int face) const;
    bool no_spare_wild(const State& s) const;
    bool wild_on_others_meld(const State& s, int action) const;
    std::vector<int> swap_moves(const State& s, const std::vector<int>& hand) const;
    std::vector<int> swap_faces(const State& s) const;
    SmallList wild_positions(const PlacedMeld& meld) const;

    bool owed_wilds_placed(const State& s, int action) const;
    bool rest_makeable(const State& s, const std::vector<int>& naturals, int wilds, int sets, int runs) const;
    bool plain_going_down_left(const State& s, int& sets, int& runs) const;
    int swap_then_go_down(const State& s, int action) const;  // 1 true, 0 false, -1 for the search
    std::vector<int> plain_meld_verdicts(const State& s, int sets_left, int runs_left,
                                         const std::vector<int>& moves) const;  // per move, as above
    bool swap_then_lay_off(const State& s, int action) const;
    State after(const State& s, int action) const;
    bool turn_done(const State& s) const;
    bool may_discard_last(const State& s) const;
    bool finishable(const State& s) const;
    bool plain_going_down(const State& s) const;
    bool search_needed(const State& s) const;
    bool going_down_ends(const State& s, int size, bool taken_blocked, int sets, int runs) const;
    bool move_plays(int action, int face) const;
    bool obligations_possible(const State& s) const;
    bool table_has_meld_for(const State& s, int face) const;
    bool placeable_when_down(const State& s, int must) const;

    // This thread's solver for the table's deck and meld rules: shared by every table a thread
    // plays, so that a batch of thousands holds a few solvers' memos, not thousands.
    ContractSolver& solver() const;

    TableRules rules_;
    bool contract_;
    int num_faces_, num_naturals_, wild_card_ = -1, top_ = 0;
    int buy_start_ = -1, deep_start_ = -1, discard_start_ = 2, set_start_ = -1;
    int lay_off_start_ = -1, swap_start_ = -1;
    // The action layout and what is derived from it, built once per rules and shared by its
    // tables (a batch holds thousands; Toonerville Rook's layout alone is 6,587 actions).
    struct SetIndex {
        // Every rank lists the same sets of suits in the same order (ActionLayout), so the sets
        // a hand can make are found from the rank's naturals per suit (capped at the most a set
        // action names) and its wilds.
        int per_rank = 0, cap = 0, max_wilds = 0;
        std::vector<std::vector<int>> offsets;  // per (capped counts, wilds): offsets in a rank's block
    };
    struct LayoutIndex {
        std::vector<Action> actions;
        std::vector<int> cards_used;  // per action: cards a meld or lay-off takes from the hand
        std::vector<int> run_ids;     // (suit, low, high) -> run action id, or -1
        SetIndex sets;
        int buy_start = -1, deep_start = -1, discard_start = -1, set_start = -1, run_start = -1;
        int lay_off_start = -1, swap_start = -1;
    };
    std::shared_ptr<const LayoutIndex> layout_;
    std::shared_ptr<const LayoutIndex> build_layout() const;
    void index_sets(LayoutIndex& index) const;
    std::vector<int> natural_values_;
    std::vector<int> copies_;  // per face, how many the deck holds
    long search_id_;           // the turn search's memo key prefix: tables of one rules share it
    State state_;
    bool dealt_ = false;
    std::vector<int> legal_, spare_legal_;  // spare_legal_: where the next list is built
    bool legal_known_ = false;
};

}  // namespace rummy
